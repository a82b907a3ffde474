"""Step 1 over a run's clips: each clip evaluated once, appended as it is scored.

`run_step1` scores the generated clips with the prepared families, resuming from
step1_per_sample_scores.jsonl, and writes the official eval_{mode}.csv.
"""

import dataclasses
import hashlib
import pathlib
from typing import Dict, List

from benchmarks.common import engine
from benchmarks.common import scorecard as card_lib
from benchmarks.common import sample_batch
from benchmarks.common import trust
from benchmarks.memobench import clip_eval
from benchmarks.memobench import eval_csv
from benchmarks.memobench import metric_specs
from benchmarks.memobench.step1 import prepare as step1_prepare
from proto import scorecard_pb2

PER_SAMPLE = "step1_per_sample_scores.jsonl"


@dataclasses.dataclass
class Step1Outcome:
    """Step 1's per-clip samples (in clip order), metrics and what it wrote."""

    samples: List[scorecard_pb2.SampleScore]
    metrics: List[scorecard_pb2.MetricResult]
    checkpoints: List[scorecard_pb2.CheckpointRef]
    seconds: float
    output_files: Dict[str, str]


def run_step1(ctx: engine.Context, config, clips, rows, data_root: pathlib.Path, metric_ids,
              version: str) -> Step1Outcome:
    """Scores `clips` on the Step 1 `metric_ids`; config is a runner.MemobenchConfig."""
    prepared = step1_prepare.prepare(config.step1, metric_ids)
    output_dir = pathlib.Path(config.output_dir)
    outcome = ctx.evaluate(engine.Pass(
        label="Step 1", items=clips, ref=clip_eval.ref, store=PER_SAMPLE,
        load=lambda clip: clip_eval.load(clip, rows, data_root, config.max_side),
        score=lambda clip, loaded: clip_eval.evaluate(
            clip, loaded, config.sample_step, prepared, metric_ids),
        digest=lambda clip: clip_eval.input_digests(clip, rows, data_root),
        batch=sample_batch.families_stage(  # the per-frame models' calls (models.py)
            prepared.families, config.common.sample_batch, "MemoBench Step 1",
            config.sample_step),
        settings={"max_side": config.max_side, "sample_step": config.sample_step,
                  "version": version, "metrics": sorted(metric_ids),
                  "backends": {m: (b.name, b.checkpoint_id) for m in metric_ids
                               for b in [prepared.backend_of(m)] if b is not None},
                  "prompt_sources": [_file_digest(p) for p in (
                      config.step1.prompt_src_syn, config.step1.prompt_src_real)]},
        checkpoints=prepared.checkpoints()))
    samples = outcome.samples
    eval_path = eval_csv.write(output_dir / f"eval_{config.mode}.csv", samples)
    return Step1Outcome(
        samples=samples, metrics=_metric_results(samples, metric_ids, prepared),
        checkpoints=prepared.checkpoints(),
        seconds=sum(s.seconds for s in samples),
        output_files={"eval_csv": str(eval_path),
                      "step1_per_sample_scores": str(output_dir / PER_SAMPLE)})


def _file_digest(path) -> str:
    """A prompt file's sha256 (so --resume recomputes ImageReward when it changes)."""
    if not path or not pathlib.Path(path).is_file():
        return str(path or "")
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


def _metric_results(samples, metric_ids, prepared):
    results = []
    for metric in metric_ids:
        spec = metric_specs.BY_ID[metric]
        if metric in prepared.unavailable:
            reason, backend = prepared.unavailable[metric]
            results.append(card_lib.unavailable(spec, reason, backend))
            continue
        fam = prepared.family_of(metric)
        seconds = sum(float(s.diagnostics.get(clip_eval.SECONDS + fam.name, 0)) for s in samples)
        backend = trust.with_digests(fam.backend_for(metric), fam.checkpoints_for(metric))
        results.append(card_lib.aggregate(spec, samples, backend, seconds))
    return results
