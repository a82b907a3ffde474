"""MemoBench Step 1 runner: `run(config) -> Scorecard`.

Finds the generated clips and their ground truth, evaluates each clip once (resuming
from per_sample_scores.jsonl), and writes scorecard.json, per_sample_scores.jsonl,
raw_metric_table.jsonl, artifact_manifest.json and the official eval_{mode}.csv.
"""

import dataclasses
import pathlib
import time
from typing import List, Optional

from absl import logging

from benchmarks.common import outputs as outputs_lib
from benchmarks.common import provenance
from benchmarks.common import scorecard as card_lib
from benchmarks.common.errors import InputError
from benchmarks.common.flags import CommonConfig
from benchmarks.common.sample_store import SampleStore, config_digest
from benchmarks.memobench import clip_eval
from benchmarks.memobench import dataset
from benchmarks.memobench import eval_csv
from benchmarks.memobench import generated as generated_lib
from benchmarks.memobench import manifest
from benchmarks.memobench import metric_specs
from benchmarks.memobench import verification
from benchmarks.memobench.step1 import prepare as step1_prepare
from metrics.video import frames as frames_lib
from proto import scorecard_pb2

BENCHMARK_ID = "memobench"
# Bump when a change moves a number; say why in benchmarks/memobench/CHANGELOG.md.
BENCHMARK_VERSION = "memobench-step1/1"
MODES = ("synthetic", "real", "both")


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
    step1: step1_prepare.Step1Settings = step1_prepare.Step1Settings()
    recorded_flags: dict = dataclasses.field(default_factory=dict)


def _selected_metrics(config: MemobenchConfig) -> List[str]:
    if not config.common.metrics:
        return [spec.id for spec in metric_specs.ALL]
    unknown = [m for m in config.common.metrics if m not in metric_specs.BY_ID]
    if unknown:
        raise InputError("--metrics", "MemoBench metric ids: " + ", ".join(metric_specs.BY_ID),
                         ", ".join(unknown))
    return list(config.common.metrics)


def _splits(mode: str):
    if mode not in MODES:
        raise InputError("--mode", "one of " + ", ".join(MODES), mode)
    return [s for s in (dataset.SYNTHETIC, dataset.REAL) if mode in (s, "both")]


def _discover(config: MemobenchConfig, splits) -> List[generated_lib.GeneratedClip]:
    clips = []
    if dataset.SYNTHETIC in splits:
        if config.generated_synthetic_dir is None:
            raise InputError("--generated_synthetic_dir", "the synthetic generated-clip folder "
                             f"(--mode={config.mode})", "none given")
        clips += generated_lib.discover_synthetic(config.generated_synthetic_dir)
    if dataset.REAL in splits:
        if config.generated_real_dir is None:
            raise InputError("--generated_real_dir", "the real generated-clip folder "
                             f"(--mode={config.mode})", "none given")
        clips += generated_lib.discover_real(config.generated_real_dir)
    return clips


def _keep(config: MemobenchConfig, clip_id: str, scene: str) -> bool:
    return ((config.clip is None or clip_id == config.clip)
            and (config.scene is None or scene == config.scene))


def run(config: MemobenchConfig) -> scorecard_pb2.Scorecard:
    """Evaluates the configured clips and writes every output file; returns the scorecard."""
    started_at, t0 = provenance.now_rfc3339(), time.perf_counter()
    metric_ids = _selected_metrics(config)
    splits = _splits(config.mode)
    data_root = dataset.resolve_data_root(config.data_root)
    syn_rows, real_rows, sheets = dataset.load_sheets(
        data_root, config.synthetic_sheet, config.real_sheet)
    rows = {dataset.SYNTHETIC: syn_rows, dataset.REAL: real_rows}
    for split, sheet in zip((dataset.SYNTHETIC, dataset.REAL), sheets):
        if split in splits and sheet is None:
            raise InputError(data_root, f"the {split} phase sheet "
                             f"({dataset.SYNTHETIC_SHEET_STEM if split == dataset.SYNTHETIC else dataset.REAL_SHEET_STEM}.xlsx or .csv)",
                             "none")
    expected = [(split, cid) for split in splits for cid in sorted(rows[split])
                if _keep(config, cid, cid.rsplit("_", 1)[0] if split == dataset.SYNTHETIC
                         else dataset.REAL)]
    clips = [c for c in _discover(config, splits) if _keep(config, c.clip_id, c.scene)]
    if config.common.limit:
        clips = clips[:config.common.limit]
    if not clips:
        raise InputError(config.generated_synthetic_dir or config.generated_real_dir,
                         "at least one generated clip matching the selection", "none")

    prepared = step1_prepare.prepare(config.step1, metric_ids)
    out = outputs_lib.RunOutputs(config.output_dir)
    digest = config_digest({
        "max_side": config.common.max_side, "sample_step": config.common.sample_step,
        "version": BENCHMARK_VERSION, "metrics": sorted(metric_ids),
        "backends": {m: (b.name, b.checkpoint_id) for m in metric_ids
                     for b in [prepared.backend_of(m)] if b is not None}})
    with SampleStore(out.path(outputs_lib.PER_SAMPLE), digest, config.common.resume) as store:
        if store.resumed:
            logging.info("resuming: %d samples already scored", store.resumed)
        for i, clip in enumerate(clips):
            if clip.clip_id in store:
                continue
            logging.info("[%d/%d] %s", i + 1, len(clips), clip.clip_id)
            store.append(_evaluate_one(clip, rows, data_root, config, prepared, metric_ids))
        by_id = {(s.split, s.sample_id): s for s in store.samples()}
    samples = [by_id[(c.split, c.clip_id)] for c in clips if (c.split, c.clip_id) in by_id]
    metric_seconds = sum(s.seconds for s in samples)

    card = scorecard_pb2.Scorecard(benchmark_id=BENCHMARK_ID, benchmark_version=BENCHMARK_VERSION,
                                   model_name=config.model_name)
    card.metrics.extend(_metric_results(samples, metric_ids, prepared))
    card.coverage.CopyFrom(card_lib.coverage(
        [f"{s}/{c}" for s, c in expected],
        [f"{c.split}/{c.clip_id}" for c in clips], samples,
        "phase-sheet rows" + (" after --clip/--scene" if config.clip or config.scene else "")))
    card.verification.CopyFrom(verification.assess(card, config, len(clips)))
    card.provenance.CopyFrom(provenance.capture({
        "data_root": data_root, "generated_synthetic_dir": config.generated_synthetic_dir,
        "generated_real_dir": config.generated_real_dir}))
    card.provenance.checkpoints.extend(prepared.checkpoints())
    card.notes.append(f"{metric_seconds:.1f} s spent in per-clip evaluation")
    card.notes.append("eval_both.csv: a metric column that is None for every clip is written "
                      "as empty cells; the official run_eval.py raises TypeError on it under "
                      "pandas 2 (spec §5)")
    if store.resumed:
        card.notes.append(f"resumed: {store.resumed} samples reused from an earlier run")

    files = {
        "eval_csv": eval_csv.write(out.path(f"eval_{config.mode}.csv"), samples),
        "per_sample_scores": out.path(outputs_lib.PER_SAMPLE),
        "raw_metric_table": out.write_raw_table(samples, metric_ids),
        "artifact_manifest": out.write_artifact_manifest(
            manifest.build(BENCHMARK_ID, config.model_name, clips, by_id)),
        "scorecard": out.path(outputs_lib.SCORECARD),
    }
    card.output_files.update({k: str(v) for k, v in files.items()})
    # Every metric of this version runs on the CPU (numpy/OpenCV); --device is for models.
    card.run.CopyFrom(provenance.run_info(started_at, time.perf_counter() - t0, "cpu",
                                          config.recorded_flags))
    out.write_scorecard(card)
    return card


def _evaluate_one(clip, rows, data_root, config, prepared,
                  metric_ids) -> scorecard_pb2.SampleScore:
    """One clip's SampleScore; an unusable clip gets an error, and the run goes on."""
    try:
        row = rows[clip.split].get(clip.clip_id)
        if row is None:
            raise InputError(clip.source, f"clip {clip.clip_id} to have a row in the "
                             f"{clip.split} phase sheet", "none")
        locate = (dataset.synthetic_ground_truth if clip.split == dataset.SYNTHETIC
                  else dataset.real_ground_truth)
        gt = locate(data_root, clip.clip_id, row)
        return clip_eval.evaluate(clip, gt, config.common.max_side, config.common.sample_step,
                                  prepared, metric_ids)
    except (InputError, frames_lib.FrameInputError, ValueError) as e:
        logging.warning("%s failed: %s", clip.clip_id, e)
        return scorecard_pb2.SampleScore(sample_id=clip.clip_id, split=clip.split,
                                         scene=clip.scene, error=str(e))


def _metric_results(samples, metric_ids, prepared):
    results = []
    for metric in metric_ids:
        spec = metric_specs.BY_ID[metric]
        if metric in prepared.unavailable:
            reason, backend = prepared.unavailable[metric]
            results.append(card_lib.unavailable(spec, reason, backend))
            continue
        fam = next(f for f in prepared.families if metric in f.metric_ids)
        seconds = sum(float(s.diagnostics.get(clip_eval.SECONDS + fam.name, 0)) for s in samples)
        results.append(card_lib.aggregate(spec, samples, fam.backend_for(metric), seconds))
    return results
