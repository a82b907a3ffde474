"""Physics-IQ Verified runner: `run(config) -> Scorecard` over 1-4 runs (seeds) of a model.

The same engine pass as the original track (benchmarks/physics_iq: layout, sample, the
official CSV) with the Verified metric computation (physiq/calculate_and_write_metrics_to_
csv.py: masks' channel 0, strict shapes; spec §10), every (scenario, view) of every run one
sample (split = the run's folder name). Per run: `results/<run>.csv` and
`results/<run>_metrics.json` (physiq/run_physics_iq.py's get_output_dict + the original
score); over the runs: aggregate_runs_from_csvs.py's mean and std of the Verified score
and its four subscores, the submission card's reported_scores.

The ground truth is `physics-IQ-benchmark-verified` (Hugging Face
Anates-Labs-Research/Physics-IQ-Verified, gated), laid out as the original tree
(physiq/run_physics_iq.py reads the same paths under it).
"""

import dataclasses
import pathlib
from typing import Dict, List, Sequence, Tuple

from benchmarks.common import engine
from benchmarks.common import scorecard as card_lib
from benchmarks.common import trust
from benchmarks.common.errors import InputError
from benchmarks.common.flags import CommonConfig
from benchmarks.physics_iq import card as original_card
from benchmarks.physics_iq import csv_file, verified_score
from benchmarks.physics_iq import layout as layout_lib
from benchmarks.physics_iq import sample as sample_lib
from benchmarks.physics_iq_verified import metric_specs
from proto import scorecard_pb2

BENCHMARK_ID, BENCHMARK_VERSION = metric_specs.BENCHMARK_ID, metric_specs.BENCHMARK_VERSION
TRACK = "verified"
# The Verified track's descriptions files at main@023e069 (same ids and scenarios as the
# original's; the prompts differ) and the original's: the two shipped ones and the two
# physiq/generate_descriptions.py writes for its other templates (byte-equal to ours,
# //benchmarks/physics_iq_verified:prompts; testdata/prompts_official.json).
OFFICIAL_DESCRIPTIONS = dict(original_card.OFFICIAL_DESCRIPTIONS, **{
    "66dbe342affda20d4abb76579a36d985cb7e221b5b6eae571069f50f155c37fc":
        "descriptions/descriptions_original.csv @ 023e069",
    "20ffd208acc0b0f50d4638d1da69218168e78336e96118244a53d0ae046729c8":
        "descriptions/best_practice/descriptions_base.csv @ 023e069",
    "1b67b96d6918e8aa04f93d476f1aea4345922af9de06527dad19eedb079e692b":
        "descriptions_pvideo.csv (physiq/generate_descriptions.py pvideo @ 023e069)",
    "4f3afc672abbe9efe8b5f551fa6639565ce28bea9559103df1cd9f6732c11b4e":
        "descriptions_sora2.csv (physiq/generate_descriptions.py sora2 @ 023e069)"})

BACKEND = scorecard_pb2.Backend(
    name=metric_specs.BACKEND, official=True, digest_pinned=True,
    implementation="benchmarks/physics_iq (view_metrics track 'verified', verified_score) "
                   "on metrics/motion_masks",
    parity=trust.verified(
        "//benchmarks/physics_iq_verified:official_tree_test (recomputed in CI against "
        "benchmarks/physics_iq_verified/testdata/verified_tree: upstream 023e069's "
        "physiq/run_physics_iq.py and aggregate_runs_from_csvs.py on "
        "//tools/fixtures:physics_iq_tree, runs follows and diverges)",
        "weight-free: every mask file byte for byte, each run's CSV cell by cell, each "
        "{run}_metrics.json byte for byte, mean and std over runs with =="))


# Per view, the row's take-1 means (sample.py): not this table's metrics, the run's.
_RAW_COLUMNS = frozenset(column for column, _, _ in sample_lib.COLUMNS)


@dataclasses.dataclass(frozen=True)
class VerifiedConfig:
    """One Physics-IQ Verified run (see the runner's flags)."""

    common: CommonConfig
    real_dir: pathlib.Path                  # physics-IQ-benchmark-verified
    generated_dirs: Tuple[pathlib.Path, ...]  # one folder per run (seed), 1 to 4
    descriptions: pathlib.Path
    output_dir: pathlib.Path
    model_name: str
    bundled_sample: bool = False
    recorded_flags: dict = dataclasses.field(default_factory=dict)


def _runs(config: VerifiedConfig) -> List[str]:
    names = [d.name for d in config.generated_dirs]
    if not 1 <= len(names) <= verified_score.MAX_RUNS or len(set(names)) != len(names):
        raise InputError("--generated_dirs", f"1 to {verified_score.MAX_RUNS} run folders "
                         "with different names (physiq/aggregate_runs_from_csvs.py)",
                         ", ".join(str(d) for d in config.generated_dirs) or "none")
    return names


def _aggregate(outputs: Sequence[Dict[str, float]], why_none: str
               ) -> List[scorecard_pb2.MetricResult]:
    if not outputs:
        return [card_lib.unavailable(s, why_none, BACKEND) for s in metric_specs.SPECS]
    stats = verified_score.aggregate_runs(outputs, "verified")
    out = []
    for name, key, _, _ in metric_specs.SCORES:
        mean, std = stats[key]
        for suffix, value in (("mean", mean), ("std", std)):
            spec = metric_specs.BY_ID[f"{name}_{suffix}"]
            if value is None:
                out.append(card_lib.unavailable(
                    spec, "a standard deviation needs two runs or more; one was scored",
                    BACKEND))
                continue
            result = card_lib.unavailable(spec, "", BACKEND)
            result.available, result.unavailable_reason = True, ""
            result.value = value
            result.sample_count = len(outputs)
            out.append(result)
    return out


def _evaluate(ctx: engine.Context, config: VerifiedConfig) -> engine.Evaluation:
    metric_specs.TABLE.select(config.common.metrics)
    runs = _runs(config)
    layouts, views = {}, []
    for run, folder in zip(runs, config.generated_dirs):
        laid = layout_lib.lay_out(config.real_dir, config.descriptions, folder)
        laid.raise_if_refused()
        layouts[run] = laid
        # Real masks made here (a tree without them) go to a folder per run: two runs'
        # views may be scored at once on Ray, and never write the same file.
        setup = sample_lib.Setup(fps=laid.fps, track=TRACK,
                                 masks_out=config.output_dir / "video-masks" / run,
                                 model=run, real_masks_present=laid.masks_present, split=run)
        views += [sample_lib.View(s, setup) for s in laid.samples]
    chosen = ctx.select(views, lambda v: sample_lib.ref(v).key)
    items = [v for v in chosen if v.item.generated is not None]
    outcome = ctx.evaluate(engine.Pass(
        label="Physics-IQ Verified", items=items, ref=sample_lib.ref, load=sample_lib.load,
        score=sample_lib.score, digest=sample_lib.digest,
        settings={"version": BENCHMARK_VERSION, "track": TRACK, "runs": runs},
        checkpoints=()))
    samples = outcome.samples
    outputs, files, notes, missing = [], {}, [], {}
    for run in runs:
        chosen_run = [v.item for v in chosen if v.setup.split == run]
        rows = original_card.run_rows(chosen_run, samples, run)
        missing.update(rows.missing)
        if rows.lacking:
            notes.append(f"{run}: scenarios left out of its CSV, a view without a value: "
                         + "; ".join(f"{s} (lacking {', '.join(v)})"
                                     for s, v in rows.lacking.items()))
        if not rows.rows:
            notes.append(f"{run}: no scenario has all three views scored; not aggregated")
            continue
        path = original_card.write_run_csv(config.output_dir, run, rows.rows)
        values = verified_score.metrics_json(csv_file.read_csv(path))
        metrics_json = path.with_name(f"{run}_metrics.json")
        metrics_json.write_text(verified_score.metrics_json_text(values))
        files[f"metrics_csv:{run}"] = str(path)
        files[f"metrics_json:{run}"] = str(metrics_json)
        outputs.append(values)
    metrics = _aggregate(outputs, "no run has a complete scenario")
    for result in metrics:
        if result.available:
            result.expected_sample_count = len(runs)
            for key, why in missing.items():
                result.missing_sample_ids.append(key)
                result.missing_reasons[key] = why
    first = next(iter(layouts.values()))
    notes += [n for laid in layouts.values() for n in original_card.notes(
        laid, original_card.Results([], None, None, {}))]
    return engine.Evaluation(
        metrics=metrics, samples=samples,
        expected=[f"{v.setup.split}/{v.item.name}" for v in chosen],
        found=[f"{v.setup.split}/{v.item.name}" for v in items],
        expected_source=str(config.descriptions),
        facts=original_card.facts(first, config.bundled_sample, OFFICIAL_DESCRIPTIONS),
        inputs={"real_dir": config.real_dir, "descriptions": config.descriptions,
                **{f"generated_dir:{r}": d for r, d in zip(runs, config.generated_dirs)}},
        official_files=files,
        raw_table_metrics=sorted(_RAW_COLUMNS),
        notes=list(dict.fromkeys(notes)))


BENCHMARK = engine.Benchmark(
    BENCHMARK_ID, BENCHMARK_VERSION, _evaluate, metric_specs.TABLE, sample_noun="views",
    raw_columns=_RAW_COLUMNS.__contains__)


def run(config: VerifiedConfig) -> scorecard_pb2.Scorecard:
    """Evaluates the runs and writes every output file; returns the scorecard."""
    return engine.run(BENCHMARK, config)
