"""WorldScore 3d_consistency.reprojection_error: the arithmetic after DROID-SLAM (spec §4.4).

Official source: worldscore/benchmark/metrics/third_party/reprojection_error_metrics.py and
its DROID-SLAM copy's factor_graph.py::update_lowmem / droid_backend.py / droid.py
(haoyi-duan/WorldScore@344983c). Same tracker, settings and frames as camera_control.

Which graph: `Droid.terminate` calls the global backend twice, `backend(7)` then
`backend(12)`; each call normalises the depth video (mono: mean disparity to 1), builds
a fresh FactorGraph with proximity edges (rad 2, nms 3, thresh 22.0, beta 0.3, at most
16 t factors; metrics/slam/droid_graph.py) and runs `update_lowmem(steps)`, which
returns the errors below. The value comes from the SECOND call. In each of its 12 steps, every edge (i, j) gets a flow target
`target = coords1 + delta` from the update operator (coords1 reprojected before the
step's BA), then dense BA moves poses and disparities. After the last step:

    coords1, valid = reproject(ii, jj)            poses and disparities AFTER the last BA
    target         = the last step's targets      (computed BEFORE that BA), [E, 2, h, w]
    error[e, y, x] = sqrt(sum_c (coords1 - target)^2)   float32, on the 1/8 grid (h, w)
    score          = mean(error[valid > 0])       float32 torch mean, then a Python float

Failure case kept: with no valid pixel the official code never assigns its result
(`if len(valid_errors) > 0: mean_error = ...`), so `return mean_error` raises
UnboundLocalError, the evaluator's try/except records the fallback raw score +100
(lower is better) and score_normalized 0 (normalize.failure_score). `unset_result`
returns exactly that; `reprojection_error` raises ReprojectionUnset (a ValueError
saying why) so a caller can tell the two apart.
"""

from typing import Tuple

from benchmarks.worldscore import aspects
from benchmarks.worldscore import droid_slam
from benchmarks.worldscore import normalize

METRIC = aspects.METRICS[("3d_consistency", "reprojection_error")]
BACKEND_STEPS = droid_slam.OFFICIAL.backend_steps  # terminate(): the value is the last call's


class ReprojectionUnset(ValueError):
    """No edge pixel is valid: the official metric raises (its value is never set)."""


def _shape(t):
    return tuple(t.shape)


def valid_errors(coords1, valid, target):
    """The float32 per-pixel errors of the valid pixels, in the official order.

    Args:
      coords1: [1, E, h, w, 2] reprojected coordinates after the last BA.
      valid: [1, E, h, w, 1] the reprojection's validity (0/1 floats).
      target: [E, 2, h, w] the last step's flow targets (BA layout).
    """
    import torch  # pylint: disable=import-outside-toplevel
    coords1, valid, target = (torch.as_tensor(x) for x in (coords1, valid, target))
    if coords1.ndim != 5 or coords1.shape[0] != 1 or coords1.shape[-1] != 2:
        raise ValueError(f"coords1 must be [1, E, h, w, 2], got {_shape(coords1)}")
    e, h, w = coords1.shape[1:4]
    if _shape(valid) != (1, e, h, w, 1):
        raise ValueError(f"valid must be [1, {e}, {h}, {w}, 1], got {_shape(valid)}")
    if _shape(target) != (e, 2, h, w):
        raise ValueError(f"target must be [{e}, 2, {h}, {w}], got {_shape(target)}")
    target = target.permute(0, 2, 3, 1).unsqueeze(0)
    error = torch.sqrt(((coords1 - target) ** 2).sum(dim=-1))
    return error[valid.squeeze(-1).bool()]


def reprojection_error(coords1, valid, target) -> float:
    """The raw reprojection_error; ReprojectionUnset when no pixel is valid."""
    errors = valid_errors(coords1, valid, target)
    if len(errors) == 0:
        raise ReprojectionUnset(
            f"no valid pixel on the {coords1.shape[1]} edges of the final global BA graph: "
            "the official metric's value is never set (UnboundLocalError), so the evaluator "
            "records its failure fallback")
    return errors.mean().item()


def unset_result() -> Tuple[float, float]:
    """(score, score_normalized) the official evaluator records when the value is unset."""
    return normalize.failure_score(METRIC)


def result(coords1, valid, target) -> Tuple[float, float]:
    """(score, score_normalized) of one instance, the failure fallback included."""
    try:
        score = reprojection_error(coords1, valid, target)
    except ReprojectionUnset:
        return unset_result()
    return score, normalize.normalize(METRIC, score)
