"""The official output files of calculate_score.py, written beside our contract files.

video_score.csv: a real CSV, columns video_id then the per-video metrics in --metrics
order (fvd&kvd / fid&kid removed), one row per meta row, an empty cell where the
official code stores None (a metric that raised) or NaN. average_score.csv: JSON despite
its name (json.dump(..., indent=4)): {metric: DataFrame.mean() over the videos, None
skipped}, video_id removed, then fvd, kvd, fid, kid when computed (spec §1). Both are
built the way the official code builds them (a pandas DataFrame grown row by row,
to_csv(index=False), DataFrame.mean()), so the bytes match (pandas makes video_id
floats, "1.0", as the official frame grows row by row). No composite: none is official.
"""

import json
import pathlib
from typing import Dict, List, Optional, Sequence, Tuple

import pandas as pd

from benchmarks.common import sample_store
from benchmarks.mirabench import metric_specs

VIDEO_ID = "video_id"


def _video_id(text: str):
    """The official video_id cell: pandas reads video_idx 1 as an integer."""
    try:
        return int(text)
    except ValueError:
        return text


def video_frame(rows: Sequence[Tuple[str, Dict[str, Optional[float]]]],
                metric_ids: Sequence[str]) -> pd.DataFrame:
    """The official metrics_result_pd: one row per (video_idx, {metric: value or None})."""
    columns = [m for m in metric_ids if m in metric_specs.PER_VIDEO_IDS]
    frame = pd.DataFrame(columns=[VIDEO_ID] + columns)
    for video_idx, values in rows:
        frame.loc[len(frame.index)] = [_video_id(video_idx)] + [values.get(m) for m in columns]
    return frame


def write_video_score(out_dir: pathlib.Path, frame: pd.DataFrame) -> pathlib.Path:
    """video_score.csv: the bytes `frame.to_csv(path, index=False)` writes (pandas opens
    the path as UTF-8 with newline=""), whole or not at all (sample_store.atomic_file:
    a full disk leaves the file as it was and names it)."""
    path = out_dir / metric_specs.VIDEO_SCORE_CSV
    with sample_store.atomic_file(path, binary=True) as f:
        f.write(frame.to_csv(index=False).encode("utf-8"))
    return path


def averages(frame: pd.DataFrame, set_values: Dict[str, float]) -> dict:
    """average_score.csv's dict: the per-video means, then the set-level values given.
    (video_id is left out before the mean, as the official dict drops it after: a meta
    row whose video_idx is text, an error row here, cannot make the mean raise.)"""
    metrics = frame.drop(columns=[VIDEO_ID])
    means = metrics.mean().to_dict() if len(frame.index) else {
        c: float("nan") for c in metrics.columns}
    means.update({k: set_values[k] for k in metric_specs.SET_IDS if k in set_values})
    return means


def write_average_score(out_dir: pathlib.Path, values: dict) -> pathlib.Path:
    """average_score.csv as the official `open(path, "w")` + json.dump(indent=4) writes
    it (no newline at the end; json.dump writes ASCII, so UTF-8 is the official default
    encoding's bytes), whole or not at all (sample_store.atomic_file)."""
    path = out_dir / metric_specs.AVERAGE_SCORE_CSV
    with sample_store.atomic_file(path) as f:
        json.dump(values, f, indent=4)
    return path


def read_average_score(path: pathlib.Path) -> dict:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _id_text(cell: str) -> str:
    """video_idx as the meta CSV spells it: the official writer's "1.0" is video 1."""
    head, dot, tail = cell.partition(".")
    return head if dot and head.lstrip("-").isdigit() and set(tail) <= {"0"} else cell


def read_video_score(path: pathlib.Path) -> Tuple[List[str], List[Dict[str, Optional[float]]]]:
    """(metric columns, rows as {video_id: str, metric: float or None})."""
    frame = pd.read_csv(path, dtype={VIDEO_ID: str})
    if VIDEO_ID not in frame.columns:
        raise ValueError(f"{path}: no {VIDEO_ID} column (columns: {list(frame.columns)})")
    columns = [c for c in frame.columns if c != VIDEO_ID]
    out = []
    for _, record in frame.iterrows():
        row = {VIDEO_ID: _id_text(str(record[VIDEO_ID]))}
        for c in columns:
            value = record[c]
            row[c] = None if pd.isna(value) else float(value)
        out.append(row)
    return columns, out
