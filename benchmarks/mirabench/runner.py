"""MiraBench runner: `run(config) -> Scorecard` over a meta CSV and its videos.

Every meta CSV row is one sample on the shared engine (layout.rows: a frame folder
<generated_dir>/<video_idx>/, a video <generated_dir>/<video_idx>.mp4, or the row's
video_path): frames decoded once in memory, per_sample_scores.jsonl appended as each is
scored, --resume skipping what is done, a broken video an error row naming the file
while the run goes on. Then the set-level metrics (set_metrics.py) over the generated
and GT sets. Writes, under --output_dir, the official video_score.csv and
average_score.csv (official_files.py) beside the scorecard, per_sample_scores.jsonl,
raw_metric_table.jsonl and artifact_manifest.json.
"""

import dataclasses
import functools
import pathlib
from typing import Optional

from benchmarks.common import engine
from benchmarks.common import run_device
from benchmarks.common import outputs as outputs_lib
from benchmarks.common.errors import InputError
from benchmarks.common.flags import CommonConfig
from benchmarks.mirabench import batching
from benchmarks.mirabench import card as card_parts
from benchmarks.mirabench import families as families_lib
from benchmarks.mirabench import layout
from benchmarks.mirabench import metric_specs
from benchmarks.mirabench import official_files
from benchmarks.mirabench import sample as sample_lib
from benchmarks.mirabench import set_metrics
from proto import scorecard_pb2

BENCHMARK_ID = "mirabench"
BENCHMARK_VERSION = "mirabench/1"  # bump when a change moves a number


@dataclasses.dataclass(frozen=True)
class MiraBenchConfig:
    """One MiraBench run (see the runner's flags)."""

    common: CommonConfig
    meta_csv: pathlib.Path
    generated_dir: Optional[pathlib.Path]
    output_dir: pathlib.Path
    model_name: str
    gt_meta_csv: Optional[pathlib.Path] = None
    gt_dir: Optional[pathlib.Path] = None
    strict: bool = False
    consistency_3d_seed: int = 0
    consistency_3d_repeats: int = 1
    kid_seed: int = set_metrics.DEFAULT_KID_SEED
    fid_input: str = set_metrics.OFFICIAL_INPUT
    tracking_history: str = "official"  # or "final" (model_families.FINAL_HISTORY)
    amt_scale: Optional[float] = None     # None: the official memory rule on the device
    bundled_sample: bool = False
    architectures: Optional[dict] = None  # tests only: tiny architectures of tiny checkpoints
    recorded_flags: dict = dataclasses.field(default_factory=dict)


def _rows(config: MiraBenchConfig):
    """The meta CSV's rows; InputError (exit 2, before any work) for a folder named and
    unusable (--generated_dir, --gt_dir), a meta CSV with no row (the GT one too, when
    given), and with --strict for a row with no video or an unusable video_idx."""
    layout.check_folder(config.generated_dir, "--generated_dir")
    layout.check_folder(config.gt_dir, "--gt_dir")
    if config.gt_meta_csv is not None:
        layout.read_meta(config.gt_meta_csv)
    rows = layout.rows(config.meta_csv, config.generated_dir)
    bad = [r for r in rows if r.problem]
    if config.strict and bad:
        raise InputError(*bad[0].problem)
    absent = [r for r in rows if r.source is None]
    if config.strict and absent:
        raise InputError(absent[0].expected, f"the video of meta row video_idx="
                         f"{absent[0].video_idx} (--strict)", "nothing there")
    return rows


def _evaluate(ctx: engine.Context, config: MiraBenchConfig) -> engine.Evaluation:
    metric_ids = metric_specs.TABLE.select(config.common.metrics)
    all_rows = _rows(config)
    rows = ctx.select(all_rows, lambda r: sample_lib.ref(r).key)
    prepared = families_lib.prepare(config, metric_ids)
    set_step = set_metrics.SetStep(config, metric_ids)
    per_video = prepared.families + [f for f in [set_step.collector()] if f is not None]
    running = sorted(m for m in metric_ids if prepared.family_of(m) is not None)
    outcome = ctx.evaluate(engine.Pass(
        label="MiraBench", items=rows, ref=sample_lib.ref,
        load=functools.partial(sample_lib.load, max_side=config.common.max_side),
        score=lambda row, loaded: sample_lib.score(row, loaded, per_video, metric_ids),
        digest=sample_lib.digest, batch=batching.stage(per_video, config.common.sample_batch),
        settings={"version": BENCHMARK_VERSION, "metrics": running,
                  "seed": config.consistency_3d_seed,
                  "repeats": config.consistency_3d_repeats, "fid_input": config.fid_input,
                  # only when changed: earlier stores keep their digest
                  **({"tracking_history": config.tracking_history}
                     if config.tracking_history != "official" else {}),
                  **({"amt_scale": config.amt_scale} if config.amt_scale is not None else {})},
        checkpoints=prepared.checkpoints() + set_step.checkpoints()))
    samples = outcome.samples
    sets = set_step.compute(rows, samples, ctx.outputs.path(outputs_lib.PER_SAMPLE))
    checkpoints = prepared.checkpoints() + list(sets.checkpoints)
    by_id = {s.sample_id: s for s in samples}
    frame = official_files.video_frame(  # an unusable video_idx as its CSV cell has it
        [((r.idx_cell or "") if r.problem else r.video_idx,
          sample_lib.video_row(by_id[r.video_idx], metric_ids))
         for r in rows if r.video_idx in by_id], metric_ids)
    return engine.Evaluation(
        metrics=card_parts.metric_results(samples, prepared, metric_ids, sets.results,
                                          config),
        samples=samples, expected=[r.video_idx for r in rows],
        found=[r.video_idx for r in rows if r.source is not None],
        expected_source=str(config.meta_csv), facts=card_parts.facts(config, len(all_rows)),
        inputs={"meta_csv": config.meta_csv, "generated_dir": config.generated_dir,
                "gt_meta_csv": config.gt_meta_csv, "gt_dir": config.gt_dir},
        checkpoints=checkpoints,
        official_files={
            "video_score_csv": str(official_files.write_video_score(config.output_dir,
                                                                    frame)),
            "average_score_csv": str(official_files.write_average_score(
                config.output_dir, official_files.averages(frame, sets.values)))},
        raw_table_metrics=[m for m in metric_ids if m in metric_specs.PER_VIDEO_IDS],
        notes=_notes(config, metric_ids, sets),
        device=run_device.of_models(bool(checkpoints), config.common.device))


def _raw_column(column: str) -> bool:
    """A code key of video_score.csv, or one seed's value of it (seed<k>:<key>)."""
    return column.split(":")[-1] in metric_specs.PER_VIDEO_IDS and (
        ":" not in column or column.startswith("seed"))


BENCHMARK = engine.Benchmark(BENCHMARK_ID, BENCHMARK_VERSION, _evaluate, metric_specs.TABLE,
                             sample_noun="videos", raw_columns=_raw_column)


def run(config: MiraBenchConfig) -> scorecard_pb2.Scorecard:
    """Evaluates the videos and writes every output file; returns the scorecard."""
    return engine.run(BENCHMARK, config)


def _notes(config, metric_ids, sets):
    notes = ["no composite score: the official code reports every metric on its raw scale "
             "and averages none of them (spec §1); none is computed here",
             "video_score.csv and average_score.csv (JSON despite its name) are written in "
             "the official shapes beside the contract files"]
    if any(m in metric_ids for m in families_lib.BY_METRIC["3D_consistency_mean_err"].metric_ids):
        notes.append(card_parts.NOT_REPRODUCIBLE_3D.format(seed=config.consistency_3d_seed))
    if config.bundled_sample:
        notes.append("the bundled sample: two synthetic generated clips (parallax, static) "
                     "and two GT clips (tools/fixtures/mirabench_clips.py), not MiraBench data")
    notes.extend(sets.notes)
    return notes
