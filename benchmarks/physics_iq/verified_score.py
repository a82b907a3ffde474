"""Physics-IQ Verified scoring: physiq/calculate_iq_score_stable.py `IQTable` and
physiq/aggregate_runs_from_csvs.py, read at main@023e069 (spec §10 "Scoring", "Four-run mean
± std"; quirk §11.8). Values equal a scratch run of the official code:
testdata/verified_score_official.json.

Per scenario (IQTable.__init__, :84-110): list cells are parsed with the original's 4-dp
rounding, scalar cells read as pandas 2.x reads them (csv_file.upstream_scalar); per view
the frame mean (a (scenarios, frames) array's row means: every scenario
must have the same frame count per column, as upstream's np.array needs); per key the mean
of the three views' frames concatenated (list keys) or of the three view values (scalars).

`get_output_dict` (:396-430) is what `{run}_metrics.json` holds (physiq/run_physics_iq.py
:443-449, which adds `final_score_origround`, the original score of iq_score.py):
  - `score_{st,sp,ws}` = mean over scenarios of the metric / mean of its variance, `score_mse`
    = mean(mse) - mean(variance_mse): no eps, no rounding (:329-366);
  - `final_score_raw` = (st + sp + ws)/3 - mse; `final_score_orig` = clip01(raw);
    `final_score_stable` = clip01((clip01 st + clip01 sp + clip01 ws)/3 - clip01 mse);
  - `variance_*` = the scenario means of the four variance keys;
  - `final_score_view`, the Verified score: per (scenario, view) row, scenario-major,
    sp = spatial/(variance + 1e-8), ws likewise, st = frame means' ratio with + 1e-8, and
    mse = (frame-mean mse / (frame-mean variance_mse + 1e-8)) ** -1 (an MSE of 0 gives inf);
    each clipped to [0, 1], the row's arithmetic mean, then the mean over rows;
    `score_*_view` = the means over rows of the clipped components.
"""

import json
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from benchmarks.physics_iq import iq_score
from benchmarks.physics_iq.csv_file import VIEWS, ScenarioRow, upstream_scalar
from benchmarks.physics_iq.iq_score import ScoreError, frame_values

EPS = 1e-8  # IQTable.ratio_eps
LIST_KEYS = ("spatiotemporal_iou_v1", "v1_mse", "variance_spatiotemporal_iou", "variance_mse")
SCALAR_KEYS = ("spatial_iou_v1", "weighted_spatial_iou_v1", "variance_spatial",
               "variance_weighted_spatial")
# IQTable.metric_keys order (the per-row mean sums them in this order) and each one's variance.
COMPONENTS = (("spatial_iou_v1", "variance_spatial", "score_spatial"),
              ("weighted_spatial_iou_v1", "variance_weighted_spatial", "score_weighted_spatial"),
              ("spatiotemporal_iou_v1", "variance_spatiotemporal_iou", "score_spatiotemporal"),
              ("v1_mse", "variance_mse", "score_mse"))
VERIFIED_KEY, ORIGINAL_KEY = "final_score_view", "final_score_orig"
# aggregate_runs_from_csvs.py SCORE_COLS: the score and its four subscores, per track.
SCORE_COLUMNS = {
    "verified": (VERIFIED_KEY, "score_spatial_view", "score_spatiotemporal_view",
                 "score_weighted_spatial_view", "score_mse_view"),
    "original": (ORIGINAL_KEY, "score_spatial", "score_spatiotemporal",
                 "score_weighted_spatial", "score_mse"),
}
MAX_RUNS = 4  # aggregate_runs_from_csvs.py:70-71


def _clip(x):
    return np.clip(x, 0.0, 1.0)


def _mean(values) -> np.float64:
    """pandas' float64 Series.mean: numpy's (pairwise) sum divided by the count."""
    array = np.asarray(values, dtype=np.float64)
    return array.sum() / np.float64(array.size)


class _Table:
    """The per-scenario columns IQTable builds: per-view frame means and cross-view means."""

    def __init__(self, rows: Sequence[ScenarioRow]):
        if not rows:
            raise ScoreError("no scenario row")  # IQTable @023e069 refuses an empty table
        self.by_view: Dict[Tuple[str, str], np.ndarray] = {}
        self.scenario: Dict[str, np.ndarray] = {}
        for key in LIST_KEYS:
            frames = [self._frames(rows, key, view) for view in VIEWS]
            for view, array in zip(VIEWS, frames):
                self.by_view[key, view] = array.mean(axis=1)
            self.scenario[key] = np.concatenate(frames, axis=1).mean(axis=1)
        for key in SCALAR_KEYS:
            for view in VIEWS:
                self.by_view[key, view] = np.array(
                    [upstream_scalar(iq_score.get_value(row, key, view)) for row in rows],
                    dtype=np.float64)
            # DataFrame.mean(axis=1) over the 3 view columns: ((l + c) + r) / 3.
            stacked = np.stack([self.by_view[key, view] for view in VIEWS], axis=1)
            self.scenario[key] = stacked.sum(axis=1) / np.float64(len(VIEWS))

    @staticmethod
    def _frames(rows, key: str, view: str) -> np.ndarray:
        lists = [frame_values(iq_score.get_value(row, key, view), f"{row.scenario} {key}_{view}")
                 for row in rows]
        if len({len(x) for x in lists}) != 1:
            raise ScoreError(f"{key}_{view}: frame counts differ across scenarios "
                             f"({sorted({len(x) for x in lists})}); IQTable needs them equal")
        return np.array(lists, dtype=np.float64)


def output_dict(rows: Sequence[ScenarioRow]) -> Dict[str, float]:
    """IQTable(rows).get_output_dict(), keys in upstream's order, values as Python floats."""
    table = _Table(rows)
    mean = {key: _mean(col) for key, col in table.scenario.items()}
    with np.errstate(divide="ignore", invalid="ignore"):  # 0/0 is NaN upstream too
        scores = {name: (mean[metric] - mean[variance] if metric == "v1_mse"
                         else mean[metric] / mean[variance])
                  for metric, variance, name in COMPONENTS}
    st, sp, ws, mse = (scores[k] for k in ("score_spatiotemporal", "score_spatial",
                                           "score_weighted_spatial", "score_mse"))
    raw = (st + sp + ws) / 3 - mse
    stable = _clip((_clip(st) + _clip(sp) + _clip(ws)) / 3 - _clip(mse))

    columns = []
    with np.errstate(divide="ignore"):
        for metric, variance, _ in COMPONENTS:
            m = np.stack([table.by_view[metric, view] for view in VIEWS], axis=1)
            v = np.stack([table.by_view[variance, view] for view in VIEWS], axis=1)
            ratio = m / (v + EPS)
            columns.append((ratio ** -1 if metric == "v1_mse" else ratio).flatten())
    components = _clip(np.stack(columns, axis=1))          # (scenarios * 3, 4)
    per_row = components.sum(axis=1) / np.float64(len(COMPONENTS))
    view_scores = dict(zip(("score_spatial_view", "score_weighted_spatial_view",
                            "score_spatiotemporal_view", "score_mse_view"),
                           (_mean(components[:, i]) for i in range(len(COMPONENTS)))))
    out = {
        "score_spatiotemporal": st, "score_spatial": sp, "score_weighted_spatial": ws,
        "score_mse": mse, "final_score_raw": raw, "final_score_stable": stable,
        "final_score_orig": _clip(raw),
        "variance_mse": mean["variance_mse"],
        "variance_spatiotemporal_iou": mean["variance_spatiotemporal_iou"],
        "variance_spatial": mean["variance_spatial"],
        "variance_weighted_spatial": mean["variance_weighted_spatial"],
        VERIFIED_KEY: _mean(per_row),
        "score_spatiotemporal_view": view_scores["score_spatiotemporal_view"],
        "score_spatial_view": view_scores["score_spatial_view"],
        "score_weighted_spatial_view": view_scores["score_weighted_spatial_view"],
        "score_mse_view": view_scores["score_mse_view"],
    }
    return {key: float(value) for key, value in out.items()}


def metrics_json(rows: Sequence[ScenarioRow]) -> Dict[str, float]:
    """`{run}_metrics.json`'s content: output_dict plus `final_score_origround`, the original
    track's 0-100 score (run_physics_iq.py:443-449)."""
    out = output_dict(rows)
    out["final_score_origround"] = iq_score.calculate_iq_score(rows).score
    return out


def metrics_json_text(values: Mapping[str, float]) -> str:
    """The file text upstream writes: json.dump(values, f, indent=4), no trailing newline."""
    return json.dumps(dict(values), indent=4)


def aggregate_runs(outputs: Sequence[Mapping[str, float]], score_type: str = "verified"
                   ) -> Dict[str, Tuple[float, Optional[float]]]:
    """aggregate_runs_from_csvs.py: over 1-4 runs' output dicts, pandas' mean and std (ddof
    1) of the score and its subscores, both x100. The std is None (upstream: NaN) for one run.
    """
    if not 1 <= len(outputs) <= MAX_RUNS:
        raise ValueError(f"{len(outputs)} runs given: upstream takes 1 to {MAX_RUNS}")
    result = {}
    for key in SCORE_COLUMNS[score_type]:
        values = np.array([float(run[key]) for run in outputs], dtype=np.float64)
        n = np.float64(values.size)
        avg = values.sum() / n
        std = None
        if values.size > 1:  # nanvar: count <= ddof gives NaN
            std = float(np.sqrt(((avg - values) ** 2).sum() / (n - 1)) * 100)
        result[key] = (float(avg * 100), std)
    return result


def format_mean_std(mean: float, std: Optional[float]) -> str:
    """aggregate_runs_from_csvs.py's table cell: `$m.1f \\pm s.1f$`, or `$m.1f$` alone."""
    return f"${mean:.1f}$" if std is None else f"${mean:.1f} \\pm {std:.1f}$"


def rows_per_run(runs: Sequence[Sequence[ScenarioRow]]) -> List[Dict[str, float]]:
    """output_dict of each run, in order (the input of aggregate_runs)."""
    return [output_dict(rows) for rows in runs]
