"""MemoBench runner: `run(config) -> Scorecard`, over the steps the config names.

Step 1 (eval_{mode}.csv), Step 2 ORS (ors_scores.csv), Step 3 VQA
(vqa_results/<model>/) and the leaderboard (leaderboard.csv, computed from those files
as leaderboard.py does). Each step appends its per-clip results as they are computed
(step1_/ors_/vqa_per_sample_scores.jsonl; --resume skips what is done); a step that
cannot run (missing weights, no judge) makes its metrics unavailable with the reason.
The scorecard, per_sample_scores.jsonl (the steps' rows merged per clip),
raw_metric_table.jsonl and artifact_manifest.json cover all steps.
"""

import dataclasses
import pathlib
from typing import List, Optional, Tuple

from absl import logging

from benchmarks.common import engine
from benchmarks.common import run_device
from benchmarks.common import sample_loop
from benchmarks.common import scorecard as card_lib
from benchmarks.common.errors import InputError
from benchmarks.common.flags import CommonConfig
from benchmarks.memobench import clip_eval
from benchmarks.memobench import combine
from benchmarks.memobench import dataset
from benchmarks.memobench import eval_csv
from benchmarks.memobench import generated as generated_lib
from benchmarks.memobench import leaderboard
from benchmarks.memobench import manifest
from benchmarks.memobench import metric_specs
from benchmarks.memobench import readiness
from benchmarks.memobench import verification
from benchmarks.memobench.ors import step as ors_step
from benchmarks.memobench.step1 import evaluate as step1_evaluate
from benchmarks.memobench.step1 import prepare as step1_prepare
from benchmarks.memobench.vqa import judges as vqa_judges
from benchmarks.memobench.vqa import step as vqa_step
from proto import scorecard_pb2

BENCHMARK_ID = "memobench"
# Bump when a change moves a number; say why in benchmarks/memobench/CHANGELOG.md.
BENCHMARK_VERSION = "memobench-step1/1"
MODES = ("synthetic", "real", "both")
STEP1, ORS, VQA, LEADERBOARD = "step1", "ors", "vqa", "leaderboard"
STEPS = (STEP1, ORS, VQA, LEADERBOARD)
RECOMPUTED_NOTE = engine.RECOMPUTED
PARTIAL_NOTE = ("input warning (scored as the official code scores it; see the sample's "
                f"diagnostics '{sample_loop.WARNINGS}'):")
SKIPPED_NOTE = "generated clips:"  # + "<path>: not evaluated: <why>" (discovery's skipped)


@dataclasses.dataclass(frozen=True)
class MemobenchConfig:
    """One MemoBench run (see the runner's flags)."""

    common: CommonConfig
    data_root: pathlib.Path
    output_dir: pathlib.Path
    model_name: str
    mode: str = "both"
    generated_synthetic_dir: Optional[pathlib.Path] = None
    generated_real_dir: Optional[pathlib.Path] = None
    clip: Optional[str] = None
    scene: Optional[str] = None
    synthetic_sheet: Optional[pathlib.Path] = None
    real_sheet: Optional[pathlib.Path] = None
    bundled_sample: bool = False
    max_side: int = verification.OFFICIAL_MAX_SIDE  # run_eval.py's 640; --max_side sets it
    sample_step: int = 4     # frame stride of the temporal and quality metrics
    step1: step1_prepare.Step1Settings = step1_prepare.Step1Settings()
    steps: Tuple[str, ...] = STEPS
    sam3_metadata_dir: Optional[pathlib.Path] = None
    judge: vqa_judges.JudgeSettings = vqa_judges.JudgeSettings()
    vqa_failure_cases: Optional[pathlib.Path] = None
    vqa_questions_dir: Optional[pathlib.Path] = None
    recorded_flags: dict = dataclasses.field(default_factory=dict)


def _selected_metrics(config: MemobenchConfig) -> List[str]:
    return metric_specs.TABLE.select(config.common.metrics)


def _splits(mode: str):
    if mode not in MODES:
        raise InputError("--mode", "one of " + ", ".join(MODES), mode)
    return [s for s in (dataset.SYNTHETIC, dataset.REAL) if mode in (s, "both")]


def _discover(config: MemobenchConfig, splits, skipped: Optional[List[str]] = None
              ) -> List[generated_lib.GeneratedClip]:
    """The generated clips of `splits`; what is not taken as a clip goes to `skipped`."""
    clips = []
    if dataset.SYNTHETIC in splits:
        if config.generated_synthetic_dir is None:
            raise InputError("--generated_synthetic_dir", "the synthetic generated-clip folder "
                             f"(--mode={config.mode})", "none given")
        clips += generated_lib.discover_synthetic(config.generated_synthetic_dir, skipped)
    if dataset.REAL in splits:
        if config.generated_real_dir is None:
            raise InputError("--generated_real_dir", "the real generated-clip folder "
                             f"(--mode={config.mode})", "none given")
        clips += generated_lib.discover_real(config.generated_real_dir, skipped)
    return clips


_OTHER_MODE = {dataset.SYNTHETIC: dataset.REAL, dataset.REAL: dataset.SYNTHETIC}


def _check_sheet(split: str, sheet, rows, data_root: pathlib.Path) -> None:
    """InputError (exit 2) when a split the run asks for has no usable sheet row."""
    stem = dataset.SYNTHETIC_SHEET_STEM if split == dataset.SYNTHETIC else dataset.REAL_SHEET_STEM
    other = f"; or pass --mode={_OTHER_MODE[split]} to evaluate the other split alone"
    if sheet is None:
        raise InputError(data_root, f"the {split} phase sheet ({stem}.xlsx or .csv){other}",
                         "none")
    if rows:
        return
    if not rows.data_rows:
        found = "a header and no rows"
    elif rows.problems:
        found = f"no usable row of {rows.data_rows} (" + "; ".join(rows.problems[:3]) + ")"
    else:
        found = f"no row left of {rows.data_rows} (skip=yes, or not in Real_Selected)"
    raise InputError(sheet, f"at least one {split} clip row with numeric boundaries{other}",
                     found)


def _keep(config: MemobenchConfig, clip_id: str, scene: str) -> bool:
    return ((config.clip is None or clip_id == config.clip)
            and (config.scene is None or scene == config.scene))


def _steps(config: MemobenchConfig) -> Tuple[str, ...]:
    unknown = [s for s in config.steps if s not in STEPS]
    if unknown or not config.steps:
        raise InputError("--steps", "a comma-separated subset of " + ",".join(STEPS),
                         ",".join(config.steps) or "none")
    return tuple(config.steps)


def _step_of(metric_id: str) -> str:
    return metric_specs.TABLE.step_of(metric_id)


def _not_run(metric_id: str, steps) -> scorecard_pb2.MetricResult:
    step = _step_of(metric_id)
    return card_lib.unavailable(metric_specs.BY_ID[metric_id],
                                f"its step ({step}) was not run: --steps={','.join(steps)}")


def _evaluate(ctx: engine.Context, config: MemobenchConfig) -> engine.Evaluation:
    metric_ids = _selected_metrics(config)
    steps = _steps(config)
    splits = _splits(config.mode)
    data_root = dataset.resolve_data_root(config.data_root)
    syn_rows, real_rows, sheets = dataset.load_sheets(
        data_root, config.synthetic_sheet, config.real_sheet)
    rows = {dataset.SYNTHETIC: syn_rows, dataset.REAL: real_rows}
    for split, sheet in zip((dataset.SYNTHETIC, dataset.REAL), sheets):
        if split in splits:
            _check_sheet(split, sheet, rows[split], data_root)
    expected = [(split, cid) for split in splits for cid in sorted(rows[split])
                if _keep(config, cid, cid.rsplit("_", 1)[0] if split == dataset.SYNTHETIC
                         else dataset.REAL)]
    expected = ctx.this_shard(expected, lambda key: key)  # this shard's rows
    skipped: List[str] = []
    clips = ctx.select([c for c in _discover(config, splits, skipped)
                        if _keep(config, c.clip_id, c.scene)], lambda c: clip_eval.ref(c).key)
    if not clips:
        raise InputError(config.generated_synthetic_dir or config.generated_real_dir,
                         "at least one generated clip matching the selection", "none" + (
                             f"; not taken as clips: {'; '.join(skipped[:3])}"
                             + (f" and {len(skipped) - 3} more" if len(skipped) > 3 else "")
                             if skipped else ""))
    results = {m: _not_run(m, steps) for m in metric_ids}
    for metric_id, reason in readiness.unready(metric_ids, config.step1).items():
        results[metric_id] = card_lib.unavailable(metric_specs.BY_ID[metric_id], reason)
    metric_ids_run = [m for m in metric_ids if results[m].unavailable_reason.startswith("its step")]
    step_samples, checkpoints, files = [], [], {}
    notes = [f"phase sheet: {problem}" for split in splits for problem in rows[split].problems]
    notes += [f"{SKIPPED_NOTE} {entry}" for entry in skipped]
    for note in notes:
        logging.warning("%s", note)

    step1_ids = [m for m in metric_ids_run if _step_of(m) == STEP1]
    # Every checkpoint is resolved before the first clip (Step 1's in its prepare).
    sam3 = (ors_step.resolve_checkpoint(config.step1)
            if ORS in steps and "ORS" in metric_ids_run else None)
    if STEP1 in steps and step1_ids:
        s1 = step1_evaluate.run_step1(ctx, config, clips, rows, data_root, step1_ids,
                                      BENCHMARK_VERSION)
        results.update({m.id: m for m in s1.metrics})
        step_samples.append(s1.samples)
        checkpoints += s1.checkpoints
        files.update(s1.output_files)
        notes.append(f"Step 1: {s1.seconds:.1f} s spent in per-clip evaluation")
        notes.append("eval_both.csv: a metric column that is None for every clip is written "
                     "as empty cells; the official run_eval.py raises TypeError on it under "
                     "pandas 2 (spec §5)")
    if ORS in steps and "ORS" in metric_ids_run:
        ors = ors_step.run_ors(clips, data_root, config.step1, ctx.output_dir,
                               metadata_dir=config.sam3_metadata_dir,
                               synthetic_sheet=config.synthetic_sheet,
                               real_sheet=config.real_sheet, resolved=sam3, ctx=ctx)
        results["ORS"] = ors.metric
        step_samples.append(ors.samples)
        checkpoints += ors.checkpoints
        files.update(ors.output_files)
    if VQA in steps and set(vqa_step.METRIC_IDS) & set(metric_ids_run):
        vqa = _run_vqa(ctx, config, data_root)
        results.update({m.id: m for m in vqa.metrics if m.id in metric_ids_run})
        step_samples.append(vqa.samples)
        files.update(vqa.output_files)
        notes += [f"VQA: {n}" for n in vqa.notes]
        notes += [f"VQA protocol deviation: {d}" for d in vqa.deviations]
        if any(m.available for m in vqa.metrics):
            notes.append(verification.VQA_COVERAGE_NOTE)
    samples = combine.merge_samples(*step_samples)
    notes += _warning_notes(samples)
    metrics = [results[m] for m in metric_ids]
    if LEADERBOARD in steps:
        eval_path = files.get("eval_csv")
        out = ctx.outputs
        row = combine.leaderboard_row(
            config.model_name, pathlib.Path(eval_path) if eval_path else None,
            out.path("ors_scores.csv"), out.dir / "vqa_results" / config.model_name,
            out.path(leaderboard.CSV_NAME))
        files["leaderboard_csv"] = str(out.path(leaderboard.CSV_NAME))
        notes += combine.reconcile(metrics, row)
    evaluated = verification.evaluated_by_step(samples)
    notes.append("coverage by step: " + "; ".join(
        verification.describe_step(step, evaluated[step.name], ())
        for step in verification.STEPS))
    unpinned = sorted({f"{c.id} ({c.metric_id}"
                       + (f"; unchanged since its lock {c.lock_file})" if c.pin == "lock"
                          else "; no lock)")
                       for c in checkpoints if not c.pinned_digest_matched})
    if unpinned:
        notes.append("loaded without a pinned digest to compare (sha256 recorded; a lock "
                     "shows a file did not change here, not that it holds the official "
                     "weights): " + ", ".join(unpinned))
    return engine.Evaluation(
        metrics=metrics, samples=samples,
        coverage_samples=step_samples[0] if STEP1 in steps and step1_ids else samples,
        expected=[f"{s}/{c}" for s, c in expected],
        found=[f"{c.split}/{c.clip_id}" for c in clips],
        expected_source="phase-sheet rows" + (" after --clip/--scene"
                                              if config.clip or config.scene else ""),
        facts=verification.facts(config, samples),
        inputs={"data_root": data_root,
                "generated_synthetic_dir": config.generated_synthetic_dir,
                "generated_real_dir": config.generated_real_dir},
        checkpoints=checkpoints, official_files=files, raw_table_metrics=metric_ids,
        manifest=manifest.build(BENCHMARK_ID, config.model_name, clips,
                                {(s.split, s.sample_id): s for s in samples}),
        notes=notes, device=run_device.of_models(bool(checkpoints), config.common.device))


BENCHMARK = engine.Benchmark(BENCHMARK_ID, BENCHMARK_VERSION, _evaluate, metric_specs.TABLE,
                             sample_noun="clips",
                             raw_columns=eval_csv.METRIC_COLUMNS.__contains__,
                             # built only when VisualQuality's family (which fills it) is not
                             family_aliases={"aesthetic": "visual_quality"})


def run(config: MemobenchConfig) -> scorecard_pb2.Scorecard:
    """Evaluates the configured clips and writes every output file; returns the scorecard."""
    return engine.run(BENCHMARK, config)


def _warning_notes(samples) -> List[str]:
    """One note per sample scored on inputs read only in part (its diagnostics say which)."""
    return [f"{PARTIAL_NOTE} {s.split}/{s.sample_id}: " + "; ".join(found)
            for s in samples for found in [sample_loop.warnings_of(s)] if found]


def _run_vqa(ctx: engine.Context, config: MemobenchConfig, data_root: pathlib.Path):
    if config.generated_synthetic_dir is None or config.mode == dataset.REAL:
        reason = "the VQA clips are synthetic; this run has no synthetic generated clips"
        return vqa_step.VqaResult(
            samples=[], expected_ids=[], found_ids=[], backend=scorecard_pb2.Backend(),
            metrics=[card_lib.unavailable(metric_specs.BY_ID[m], reason)
                     for m in vqa_step.METRIC_IDS])
    return vqa_step.run_vqa(config.generated_synthetic_dir, ctx.output_dir, config.model_name,
                            judge=config.judge, data_root=data_root,
                            failure_cases=config.vqa_failure_cases,
                            questions_dir=config.vqa_questions_dir, select=ctx.this_shard,
                            ctx=ctx)
