"""The official Step 1 output, `eval_{mode}.csv`, byte-compatible with run_eval.py (spec §5).

Rows are built as run_eval.py builds them (one dict per clip in its key order, failed
clips as {id, scene, data_type, error}), then the same pandas steps: `_pct` columns from
_RAW_NORM, composites, in-place 0-100 overwrites. One deliberate difference: a column
that is None for every clip is treated as NaN (the official code raises TypeError on it
under pandas 2.x, spec §5); the cells are empty either way.
"""

import pathlib
from typing import Iterable

import pandas as pd

from benchmarks.common import sample_store
from proto import scorecard_pb2

# run_eval.py's per-clip dict, in order (after id, scene, data_type).
DIAGNOSTIC_INT_COLUMNS = ("num_frames", "h_start", "r_start", "gt_frames")
METRIC_COLUMNS = (
    "TemporalScore", "AestheticScore", "ImageQuality", "ObjIdentityMean", "ObjIdentityMin",
    "GeoConsistencyMean", "GeoConsistencyMin", "ImageRewardScore", "GTRevisitSim",
    "GT_O_PSNR", "GT_O_SSIM", "GT_O_LPIPS", "GT_H_PSNR", "GT_H_SSIM", "GT_H_LPIPS",
    "GT_R_PSNR", "GT_R_SSIM", "GT_R_LPIPS", "GT_ALL_PSNR", "GT_ALL_SSIM", "GT_ALL_LPIPS",
    "CameraControllability", "ATE_RotDeg", "TotalGT_RotDeg", "MeanRotErrorDeg",
)
INTRINSIC_COLUMNS = ("fx", "fy")

RAW_NORM = {  # run_eval.py _RAW_NORM, in its order: (lo, hi) -> 0-100
    "TemporalScore": (0, 1), "AestheticScore": (0, 10), "ImageQuality": (0, 1),
    "GeoConsistencyMean": (0, 1), "GeoConsistencyMin": (0, 1), "ImageRewardScore": (0, 1),
    "GTRevisitSim": (0, 1), "ObjIdentityMean": (0, 1), "ObjIdentityMin": (0, 1),
    "CameraControllability": (0, 1),
}

# The 48 columns of a run in which every clip succeeded (spec §5).
COLUMNS = (("id", "scene", "data_type") + DIAGNOSTIC_INT_COLUMNS + METRIC_COLUMNS
           + INTRINSIC_COLUMNS + tuple(f"{m}_pct" for m in RAW_NORM)
           + ("MotionSmoothness", "VisualQuality", "Geo3DConsistency", "ObjIdentityConsistency"))

RAW_KEY_PREFIX = "raw:"  # SampleScore.metrics keys holding run_eval.py's raw row values


def row_for(sample: scorecard_pb2.SampleScore) -> dict:
    """run_eval.py's dict for one clip, from a SampleScore."""
    base = {"id": sample.sample_id, "scene": sample.scene, "data_type": sample.split}
    if sample.error:
        return {**base, "error": sample.error}
    row = dict(base)
    for col in DIAGNOSTIC_INT_COLUMNS:
        row[col] = int(sample.diagnostics[col])
    for col in METRIC_COLUMNS + INTRINSIC_COLUMNS:
        row[col] = sample.metrics.get(RAW_KEY_PREFIX + col)  # None when not computed
    return row


def _composite(df: pd.DataFrame) -> pd.DataFrame:
    """run_eval.py _compute_composite, for the columns that exist."""
    df["MotionSmoothness"] = df["TemporalScore_pct"].round(2)
    # run_eval.py takes a skipna mean; upstream never has ImageQuality missing (it falls
    # back to MUSIQ, then a Laplacian score). We have no fallback, so a missing half
    # leaves VisualQuality empty rather than the aesthetic score alone.
    halves = df[["AestheticScore_pct", "ImageQuality_pct"]]
    df["VisualQuality"] = halves.mean(axis=1).round(2).where(halves.notna().all(axis=1))
    df["Geo3DConsistency"] = (0.7 * df["GeoConsistencyMean_pct"]
                              + 0.3 * df["GeoConsistencyMin_pct"]).round(2)
    df["ImageRewardScore"] = df["ImageRewardScore_pct"].round(2)
    df["GTRevisitSim"] = df["GTRevisitSim_pct"].round(2)
    df["ObjIdentityConsistency"] = (0.7 * df["ObjIdentityMean_pct"]
                                    + 0.3 * df["ObjIdentityMin_pct"]).round(2)
    df["CameraControllability"] = df["CameraControllability_pct"].round(2)
    return df


def build_frame(samples: Iterable[scorecard_pb2.SampleScore]) -> pd.DataFrame:
    """The eval CSV as a DataFrame, in the given clip order."""
    df = pd.DataFrame([row_for(s) for s in samples])
    if "TemporalScore" not in df.columns:
        return df  # no clip succeeded: run_eval.py writes only id, scene, data_type, error
    for metric, (lo, hi) in RAW_NORM.items():
        values = pd.to_numeric(df[metric], errors="coerce")  # None -> NaN (pandas-2 fix)
        df[f"{metric}_pct"] = ((values - lo) / (hi - lo) * 100).clip(0, 100).round(1)
    return _composite(df)


# Scorecard metric id -> the eval-CSV column holding its 0-100 value (after run_eval.py's
# in-place overwrites). The leaderboard reads these columns (ImageReward via its _pct).
COMPOSITE_COLUMNS = {
    "MotionSmoothness": "MotionSmoothness", "VisualQuality": "VisualQuality",
    "ObjIdentityConsistency": "ObjIdentityConsistency", "Geo3DConsistency": "Geo3DConsistency",
    "CameraControllability": "CameraControllability", "ImageRewardScore": "ImageRewardScore_pct",
    "GTRevisitSim": "GTRevisitSim",
}


def composites(sample: scorecard_pb2.SampleScore) -> dict:
    """The 0-100 composite values of one clip, exactly as its eval-CSV row holds them.

    Every step of run_eval.py's post-processing is row-wise, so a one-row frame gives
    the values the whole-run CSV will hold. Missing (NaN) values are left out.
    """
    row = build_frame([sample]).iloc[0]
    values = {}
    for metric, column in COMPOSITE_COLUMNS.items():
        value = row.get(column)
        if value is not None and not pd.isna(value):
            values[metric] = float(value)
    return values


def write(path: pathlib.Path, samples: Iterable[scorecard_pb2.SampleScore]) -> pathlib.Path:
    """The bytes run_eval.py's `to_csv(path, index=False)` writes (pandas opens the path as
    UTF-8 with newline=""), whole or not at all (sample_store.atomic_file: a full disk
    leaves the file as it was and names it)."""
    with sample_store.atomic_file(path, binary=True) as f:
        f.write(build_frame(samples).to_csv(index=False).encode("utf-8"))
    return path
