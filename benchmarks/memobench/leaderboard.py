"""MemoBench's leaderboard aggregation and its CSV, as leaderboard/leaderboard.py computes them.

Per model, each column is a plain mean over clips (skipna), synthetic and real pooled, with
no weighting (spec §8, quirk 11):
  - Step 1 composites: the eval-CSV column's mean; ImageRewardScore reads
    `ImageRewardScore_pct` when the file has it (MemoBench HEAD; rev 2c1be04 read the
    `ImageRewardScore` column, which run_eval.py overwrites with the same 0-100 value);
    a CameraControllability mean below 1 is multiplied by 100 (a heuristic for old 0-1
    files);
  - GT_ALL_PSNR / SSIM / LPIPS: raw means; ORS: mean(ors) * 100;
  - VQA: the mean over clips of score[dimension] * 100.
The CSV has `Model` then the columns of DISPLAY_ORDER that exist (a step given for no
model has no columns, except ORS and VQA, which leaderboard.py always fills), written by
pandas with float_format "%.4f". There is no official overall score: the HTML view's
default sort (avgScore) is a display heuristic, deliberately not reproduced here.
"""

import math
import pathlib
from typing import Dict, Optional

import pandas as pd

from benchmarks.common import sample_store
from benchmarks.common.errors import InputError
from benchmarks.memobench import leaderboard_files as files_lib

AUTOMATED_METRICS = ("VisualQuality", "MotionSmoothness", "ObjIdentityConsistency",
                     "Geo3DConsistency", "CameraControllability", "ImageRewardScore")
FIDELITY_METRICS = ("GT_ALL_PSNR", "GT_ALL_SSIM", "GT_ALL_LPIPS")
ORS_METRIC = "ORS"
VQA_METRICS = tuple(files_lib.VQA_KEY_MAP.values())
DISPLAY_ORDER = AUTOMATED_METRICS + (ORS_METRIC,) + FIDELITY_METRICS + VQA_METRICS
STEP1_METRICS = AUTOMATED_METRICS + FIDELITY_METRICS
FLOAT_FORMAT = "%.4f"
CSV_NAME = "leaderboard.csv"


def eval_column(metric: str, columns) -> Optional[str]:
    """The eval-CSV column leaderboard.py averages for a Step 1 metric, if the file has it."""
    if metric == "ImageRewardScore" and "ImageRewardScore_pct" in columns:
        return "ImageRewardScore_pct"
    return metric if metric in columns else None


def camera_heuristic_applies(value: float) -> bool:
    """leaderboard.py: `if m == "CameraControllability" and val < 1: val *= 100`."""
    return value < 1


def _mean(step: files_lib.StepResults, column: str):
    try:
        return step.frame[column].mean(skipna=True)
    except TypeError as e:  # a column holding text: leaderboard.py raises here too
        raise InputError(step.path, f"numbers in column {column}",
                         files_lib.first_non_number(step.frame, column)) from e


def aggregate_model(results: files_lib.ModelResults) -> dict:
    """leaderboard.py aggregate_model: the CSV row of one model (NaN where no value)."""
    row = {"Model": files_lib.display_name(results.key)}
    if results.eval is not None:
        for metric in STEP1_METRICS:
            column = eval_column(metric, results.eval.frame.columns)
            value = math.nan if column is None else _mean(results.eval, column)
            if metric == "CameraControllability" and camera_heuristic_applies(value):
                value *= 100
            row[metric] = value
    if results.ors is not None and "ors" in results.ors.frame.columns:
        row[ORS_METRIC] = _mean(results.ors, "ors") * 100
    else:
        row[ORS_METRIC] = math.nan
    for metric in VQA_METRICS:
        has = results.vqa is not None and metric in results.vqa.frame.columns
        row[metric] = _mean(results.vqa, metric) if has else math.nan
    return row


def build_table(models: Dict[str, files_lib.ModelResults]) -> pd.DataFrame:
    """leaderboard.py build_leaderboard: one row per model key, in sorted key order."""
    if not models:
        raise InputError("--eval_dir/--ors_dir/--vqa_dir", "at least one model folder with "
                         "results", "none (leaderboard.py: 'No model results found.')")
    df = pd.DataFrame([aggregate_model(models[key]) for key in sorted(models)])
    return df[["Model"] + [c for c in DISPLAY_ORDER if c in df.columns]]


def write_csv(df: pd.DataFrame, path: pathlib.Path) -> pathlib.Path:
    """leaderboard.py --output: the bytes `to_csv(path, index=False, float_format="%.4f")`
    writes (pandas opens the path as UTF-8 with newline=""), whole or not at all
    (sample_store.atomic_file: a full disk leaves the file as it was and names it)."""
    with sample_store.atomic_file(path, binary=True) as f:
        f.write(df.to_csv(index=False, float_format=FLOAT_FORMAT).encode("utf-8"))
    return path


def read_csv(path: pathlib.Path) -> pd.DataFrame:
    """A leaderboard.csv written by leaderboard.py (or by write_csv)."""
    if not path.is_file():
        raise InputError(path, "a MemoBench leaderboard.csv", "no such file")
    try:
        df = pd.read_csv(path, dtype={"Model": str})
    except Exception as e:  # pylint: disable=broad-except  (any parse failure: say which file)
        raise InputError(path, "a readable CSV", f"{type(e).__name__}: {e}") from e
    if "Model" not in df.columns or not set(DISPLAY_ORDER) & set(df.columns):
        raise InputError(path, "leaderboard.py's columns (Model, " + ", ".join(DISPLAY_ORDER)
                         + ")", ", ".join(df.columns))
    return df
