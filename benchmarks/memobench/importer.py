"""Importing an official Step 1 `eval_*.csv` (run_eval.py's output) into a scorecard.

Nothing is recomputed: the scope is IMPORTED_OFFICIAL_RESULTS. Each CSV row becomes a
SampleScore (its raw columns kept as "raw:<column>", the leaderboard's columns under
the scorecard's metric ids); each metric is the leaderboard's plain mean over clips
(leaderboard.py), including its heuristic of multiplying a CameraControllability mean
below 1 by 100 (old files kept the raw 0-1 value), which is then recorded as a note.
"""

import pathlib
from typing import List

import pandas as pd

from benchmarks.common import scorecard as card_lib
from benchmarks.common.errors import InputError
from benchmarks.memobench import eval_csv
from benchmarks.memobench import metric_specs
from benchmarks.memobench import official_clips
from proto import scorecard_pb2

IMPORT_BACKEND = scorecard_pb2.Backend(
    name="imported: MemoBench run_eval.py output", official=True,
    note="values read from the official eval CSV, not recomputed by worldeval")
# Scorecard metric -> eval-CSV column read for it (leaderboard.py's choices).
STEP1_COLUMNS = {**eval_csv.COMPOSITE_COLUMNS, "AestheticScore": "AestheticScore",
                 **{f"GT_{p}_{m}": f"GT_{p}_{m}" for p in ("O", "H", "R", "ALL")
                    for m in ("PSNR", "SSIM", "LPIPS")}}


def read_eval_csv(path: pathlib.Path) -> pd.DataFrame:
    if not path.is_file():
        raise InputError(path, "an official MemoBench eval_*.csv", "no such file")
    try:
        df = pd.read_csv(path, dtype={"id": str})
    except Exception as e:  # pylint: disable=broad-except  (any parse failure: say which file)
        raise InputError(path, "a readable CSV", f"{type(e).__name__}: {e}") from e
    missing = [c for c in ("id", "data_type") if c not in df.columns]
    if missing:
        raise InputError(path, "run_eval.py's columns (id, scene, data_type, ...)",
                         "no " + ", ".join(missing))
    return df


def samples_from(df: pd.DataFrame) -> List[scorecard_pb2.SampleScore]:
    samples = []
    for _, row in df.iterrows():
        sample = scorecard_pb2.SampleScore(
            sample_id=str(row["id"]), split=str(row["data_type"]), scene=str(row.get("scene", "")))
        error = row.get("error")
        if isinstance(error, str) and error:
            sample.error = error
            samples.append(sample)
            continue
        for column in df.columns:
            value = pd.to_numeric(row[column], errors="coerce")
            if column not in ("id", "scene", "data_type", "error") and pd.notna(value):
                sample.metrics[eval_csv.RAW_KEY_PREFIX + column] = float(value)
        for metric, column in STEP1_COLUMNS.items():
            key = eval_csv.RAW_KEY_PREFIX + column
            if key in sample.metrics:
                sample.metrics[metric] = sample.metrics[key]
        samples.append(sample)
    return samples


def build_scorecard(path: pathlib.Path, model_name: str):
    """(scorecard, samples) for one official eval CSV."""
    df = read_eval_csv(path)
    samples = samples_from(df)
    card = scorecard_pb2.Scorecard(benchmark_id="memobench", model_name=model_name,
                                   benchmark_version="memobench-step1/imported")
    for spec in metric_specs.ALL:
        if spec.id in STEP1_COLUMNS:
            result = card_lib.aggregate(spec, samples, IMPORT_BACKEND,
                                        unavailable_reason=f"no values in {path.name}")
            if spec.id == "CameraControllability" and result.available and result.value < 1:
                result.value *= 100  # leaderboard.py's heuristic for 0-1 files
                card.notes.append("CameraControllability mean < 1: multiplied by 100 as "
                                  "leaderboard.py does (a file holding the raw 0-1 value)")
        else:
            result = card_lib.unavailable(spec, f"not a Step 1 column: not in {path.name}")
        card.metrics.append(result)
    expected = [f"synthetic/{c}" for c in official_clips.SYNTHETIC] + [
        f"real/{c}" for c in official_clips.REAL]
    found = [f"{s.split}/{s.sample_id}" for s in samples]
    card.coverage.CopyFrom(card_lib.coverage(expected, found, samples,
                                             "the 360 official clips (spec §2.5)"))
    blockers = [card_lib.blocker(scorecard_pb2.IMPORTED_NOT_RECOMPUTED,
                                 f"imported from {path}, not recomputed")]
    if card.coverage.missing_sample_ids:
        blockers.append(card_lib.blocker(
            scorecard_pb2.INCOMPLETE_COVERAGE,
            f"{len(card.coverage.missing_sample_ids)} of the 360 official clips are not in the file"))
    card.verification.CopyFrom(card_lib.verification(blockers, [], len(samples), imported=True))
    return card, samples
