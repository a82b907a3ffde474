"""Folding MemoBench's steps into one scorecard: per-clip rows merged across Step 1,
ORS and VQA, and the official leaderboard computed from the files the steps wrote.
"""

import math
import pathlib
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from benchmarks.memobench import leaderboard
from benchmarks.memobench import leaderboard_files as files_lib
from proto import scorecard_pb2

# Relative tolerance within which the scorecard's mean and leaderboard.py's pandas mean
# are the same number computed in another order (they differ by an ulp at most).
_SAME = 1e-9


def merge_samples(*steps: Iterable[scorecard_pb2.SampleScore]
                  ) -> List[scorecard_pb2.SampleScore]:
    """One SampleScore per (split, clip): metrics, diagnostics and reasons of every step.

    The first step to report a clip fixes its place; `error` stays Step 1's (a clip is
    a failed sample when Step 1 could not score it); a later step's failure on a clip is
    recorded as that step's metrics being unavailable on it.
    """
    merged: Dict[Tuple[str, str], scorecard_pb2.SampleScore] = {}
    for step_index, samples in enumerate(steps):
        for sample in samples:
            key = (sample.split, sample.sample_id)
            if key not in merged:
                merged[key] = scorecard_pb2.SampleScore(
                    sample_id=sample.sample_id, split=sample.split, scene=sample.scene,
                    input_digest=sample.input_digest)
                if step_index == 0:
                    merged[key].error = sample.error
            target = merged[key]
            target.metrics.update(sample.metrics)
            target.diagnostics.update(sample.diagnostics)
            target.unavailable.update(sample.unavailable)
            target.seconds += sample.seconds
            if step_index and sample.error:
                target.diagnostics[f"error:step{step_index}"] = sample.error
    return list(merged.values())


def leaderboard_row(model_name: str, eval_path: Optional[pathlib.Path],
                    ors_path: Optional[pathlib.Path], vqa_dir: Optional[pathlib.Path],
                    output: pathlib.Path) -> dict:
    """leaderboard.py over this run's own files; writes leaderboard.csv, returns its row."""
    results = files_lib.ModelResults(key=files_lib.canonical_key(model_name))
    if eval_path is not None and eval_path.is_file():
        results.eval = files_lib.read_eval_csv(eval_path)
    if ors_path is not None and ors_path.is_file():
        results.ors = files_lib.read_ors_csv(ors_path)
    if vqa_dir is not None and vqa_dir.is_dir():
        results.vqa = files_lib.read_vqa_dir(vqa_dir)
    table = leaderboard.build_table({results.key: results})
    leaderboard.write_csv(table, output)
    return table.iloc[0].to_dict()


def reconcile(metrics: Sequence[scorecard_pb2.MetricResult], row: dict) -> List[str]:
    """Puts leaderboard.py's exact value on each available metric that agrees with it;
    returns a note for each that does not (the scorecard keeps its own value)."""
    notes = []
    for metric in metrics:
        official = row.get(metric.id)
        if not metric.available or official is None or math.isnan(official):
            continue
        if abs(metric.value - official) <= _SAME * max(1.0, abs(official)):
            metric.value = float(official)
        else:
            notes.append(
                f"{metric.id}: leaderboard.csv has {official:.4f}, the scorecard "
                f"{metric.value:.4f}; they differ where leaderboard.py's heuristic applies "
                "(a CameraControllability mean below 1 is taken for an old 0-1 file and "
                "multiplied by 100); the scorecard keeps the value the metric defines")
    return notes
