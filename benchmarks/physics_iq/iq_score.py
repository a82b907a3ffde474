"""The original Physics-IQ score: code/calculate_iq_score.py `calculate_iq_score` @ e457754
(spec §9, quirks §11.6-7), reproduced operation by operation so the values are upstream's
to the last bit (checked against a scratch run of the official script:
testdata/iq_score_official.json).

Arithmetic, in upstream's order and with upstream's number types:
  1. Per-frame list values are parsed and each is rounded with Python's `round(float(x), 4)`
     (calculate_iq_score.py:38); scalar cells are read as pandas 2.x reads them
     (csv_file.upstream_scalar: not always the correctly rounded float).
  2. Model means, unrounded (:94-107): MSE and ST are, per row, `np.mean` of the
     concatenated left+center+right frame lists, then the float64 mean over rows (pandas:
     numpy sum / n); SP and WS are the per-view column means, then the mean of those 3.
  3. Physical variance (:115-137): per view, the list columns are exploded into one
     object-dtype series whose pandas mean is a sequential Python sum / n; the scalar
     columns' float64 means; `np.mean` over the views present (a view whose column is
     absent is skipped), then numpy's `round` (np.float64.__round__, not Python's
     correctly-rounded one): 4 dp for MSE, ST, WS and **5 dp for SP**.
  4. score = ((ST/pvST) + (SP/pvSP) + (WS/pvWS))/3 - (MSE - pvMSE), no per-component
     clipping; x100; clamp to [0, 100]; numpy round to 2 dp (:143-152).
  5. The second return value: round(pvST + pvSP + pvWS - pvMSE, 4) (:139-142).
Where upstream yields NaN (a variance key with no view column at all, np.mean of nothing)
this raises instead: a NaN score is no result.
"""

import dataclasses
import functools
import operator
import re
from typing import List, Sequence

import numpy as np

from benchmarks.physics_iq.csv_file import VIEWS, ScenarioRow, upstream_scalar

# calculate_iq_score.py:38: the numbers parse_list_of_floats extracts from a list cell.
_NUMBER = re.compile(r"[-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?")


class ScoreError(ValueError):
    """The rows cannot be scored (missing key, empty list, no view for a variance)."""


def frame_values(value, where: str = "") -> List[float]:
    """A list cell as upstream's parse_list_of_floats returns it: every number rounded to
    4 dp with Python's round. A string is read with upstream's regex (which silently skips
    anything that is not a decimal literal, e.g. `nan`); a list is taken element-wise."""
    if isinstance(value, str):
        if not (value.startswith("[") and value.endswith("]")):
            raise ScoreError(f"{where}: {value!r} is not a list of floats")
        values = [round(float(x), 4) for x in _NUMBER.findall(value)]
    else:
        values = [round(float(x), 4) for x in value]
    if not values:
        raise ScoreError(f"{where}: no per-frame value")
    return values


@dataclasses.dataclass(frozen=True)
class IQScore:
    """calculate_iq_score's two return values and the components behind them."""

    score: float                    # 0-100, 2 dp: the Physics-IQ score
    physical_variance: float        # round(pvST + pvSP + pvWS - pvMSE, 4), unused upstream
    raw: float                      # x100, before the clamp and the rounding
    mse: float                      # model means, unrounded
    spatiotemporal_iou: float
    spatial_iou: float
    weighted_spatial_iou: float
    pv_mse: float                   # physical variances, rounded as upstream (4 dp; SP 5 dp)
    pv_spatiotemporal_iou: float
    pv_spatial_iou: float
    pv_weighted_spatial_iou: float


def get_value(row: ScenarioRow, key: str, view: str):
    """The row's `key` value for `view`; ScoreError naming the column if absent."""
    try:
        return row.views[view][key]
    except KeyError:
        raise ScoreError(f"scenario {row.scenario!r}: {key}_{view} missing") from None


def _float_mean(values) -> np.float64:
    """pandas' float64 Series.mean: numpy's (pairwise) sum divided by the count."""
    array = np.asarray(values, dtype=np.float64)
    return array.sum() / np.float64(array.size)


def _model_list_mean(rows: Sequence[ScenarioRow], key: str) -> np.float64:
    per_row = [np.mean(np.concatenate([
        np.asarray(frame_values(get_value(row, key, view), f"{row.scenario} {key}_{view}"),
                   dtype=np.float64) for view in VIEWS])) for row in rows]
    return _float_mean(per_row)


def _model_scalar_mean(rows: Sequence[ScenarioRow], key: str) -> np.float64:
    per_view = [_float_mean([upstream_scalar(get_value(row, key, view)) for row in rows])
                for view in VIEWS]
    return _float_mean(per_view)


def _views_present(rows: Sequence[ScenarioRow], key: str) -> List[str]:
    """The views whose `key` column exists: in every row, or (skipped upstream) in none."""
    present = []
    for view in VIEWS:
        has = [key in row.views.get(view, {}) for row in rows]
        if all(has):
            present.append(view)
        elif any(has):
            raise ScoreError(f"{key}_{view} present in some rows only")
    if not present:
        raise ScoreError(f"no {key}_<view> column: upstream's mean would be NaN")
    return present


def _variance_list(rows: Sequence[ScenarioRow], key: str) -> np.float64:
    means = []
    for view in _views_present(rows, key):
        frames = [x for row in rows
                  for x in frame_values(row.views[view][key], f"{row.scenario} {key}_{view}")]
        # Object-dtype mean: numpy's object reduction adds left to right (no pairwise sum).
        means.append(functools.reduce(operator.add, frames) / np.float64(len(frames)))
    return round(np.mean(means), 4)


def _variance_scalar(rows: Sequence[ScenarioRow], key: str, digits: int) -> np.float64:
    means = [_float_mean([upstream_scalar(row.views[view][key]) for row in rows])
             for view in _views_present(rows, key)]
    return round(np.mean(means), digits)


def calculate_iq_score(rows: Sequence[ScenarioRow]) -> IQScore:
    """The Physics-IQ score of one model's metrics rows (csv_file.read_csv's output)."""
    if not rows:
        raise ScoreError("no scenario row")
    mse = _model_list_mean(rows, "v1_mse")
    st = _model_list_mean(rows, "spatiotemporal_iou_v1")
    sp = _model_scalar_mean(rows, "spatial_iou_v1")
    ws = _model_scalar_mean(rows, "weighted_spatial_iou_v1")
    pv_mse = _variance_list(rows, "variance_mse")
    pv_st = _variance_list(rows, "variance_spatiotemporal_iou")
    pv_sp = _variance_scalar(rows, "variance_spatial", 5)
    pv_ws = _variance_scalar(rows, "variance_weighted_spatial", 4)
    physical_variance = round(pv_st + pv_sp + pv_ws - pv_mse, 4)
    raw = (((st / pv_st) + (sp / pv_sp) + (ws / pv_ws)) / 3 - (mse - pv_mse)) * 100
    score = round(max(min(raw, 100.0), 0.0), 2)
    return IQScore(
        score=float(score), physical_variance=float(physical_variance), raw=float(raw),
        mse=float(mse), spatiotemporal_iou=float(st), spatial_iou=float(sp),
        weighted_spatial_iou=float(ws), pv_mse=float(pv_mse),
        pv_spatiotemporal_iou=float(pv_st), pv_spatial_iou=float(pv_sp),
        pv_weighted_spatial_iou=float(pv_ws))
