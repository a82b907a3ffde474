"""`ors_scores.csv`, byte-compatible with compute_ors.py (csv.DictWriter, excel dialect).

Columns: clip_id, data_type, scene, n_gen, r_start, ors, detection_rate,
mean_confidence, n_r_frames, n_detected; scene is "real" for real clips. Upstream
writes the file once at the end (or appends with --skip-existing); we append each row
as its clip is scored, after rewriting the rows already kept by a resumed run, so the
file reads the same.
"""

import csv
import os
import pathlib
from typing import Iterable

from proto import scorecard_pb2

FILE_NAME = "ors_scores.csv"
COLUMNS = ("clip_id", "data_type", "scene", "n_gen", "r_start", "ors", "detection_rate",
           "mean_confidence", "n_r_frames", "n_detected")
METRIC_ID = "ORS"          # SampleScore.metrics key of the ors column (official 0-1)
PREFIX = "ors:"            # metrics keys of the other values, diagnostics keys of n_gen, r_start
_FLOATS = ("detection_rate", "mean_confidence")
_INTS = ("n_r_frames", "n_detected")


def row(sample: scorecard_pb2.SampleScore) -> dict:
    """The CSV row of a scored SampleScore (see step.py for the keys it carries)."""
    values = {
        "clip_id": sample.sample_id, "data_type": sample.split, "scene": sample.scene,
        "n_gen": int(sample.diagnostics[PREFIX + "n_gen"]),
        "r_start": int(sample.diagnostics[PREFIX + "r_start"]),
        "ors": sample.metrics[METRIC_ID],
    }
    values.update({k: sample.metrics[PREFIX + k] for k in _FLOATS})
    values.update({k: int(sample.metrics[PREFIX + k]) for k in _INTS})
    return values


def _write(path: pathlib.Path, mode: str, samples: Iterable[scorecard_pb2.SampleScore],
           header: bool) -> None:
    with open(path, mode, newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        if header:
            writer.writeheader()
        writer.writerows(row(s) for s in samples)
        f.flush()
        os.fsync(f.fileno())


def rewrite(path: os.PathLike, samples: Iterable[scorecard_pb2.SampleScore]) -> pathlib.Path:
    """Starts the file: the header and the rows of `samples` (scored ones only)."""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    _write(path, "w", [s for s in samples if _scored(s)], header=True)
    return path


def _scored(sample: scorecard_pb2.SampleScore) -> bool:
    """Whether `sample` has an ORS row: scored, and its ORS not left out (the engine drops
    a value outside its official range as a worldeval bug: no row, as for an error)."""
    return not sample.error and METRIC_ID in sample.metrics


def append(path: os.PathLike, sample: scorecard_pb2.SampleScore) -> None:
    """Adds one scored clip's row (durably); none for a clip whose ORS was left out."""
    if _scored(sample):
        _write(pathlib.Path(path), "a", [sample], header=False)
