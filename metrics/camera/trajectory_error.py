"""Per-frame camera trajectory errors with no rotation alignment and a scalar scale.

For N predicted and N reference camera poses (rotations R, translations t, float64):

    rotation error_i    = degrees(arccos(clamp((trace(R_pred_i @ R_ref_i^T) - 1) / 2, -1, 1)))
    c                   = argmin_c  sum_i || t_ref_i - c * t_pred_i ||_2     (no offset)
    translation error_i = || c * t_pred_i - t_ref_i ||_2

The scale is solved with cvxpy (its default solver for the problem, as written). When
cvxpy raises, or leaves no value, the fallback is the ratio of mean norms
`c = mean ||t_ref|| / (mean ||t_pred|| + 1e-8)`, and `c = 1` when that ratio is exactly 0.
The rotation block of the predictions is used as given (R_align = I).
"""

import dataclasses
from typing import Tuple

import numpy as np

FALLBACK_EPS = 1e-8


@dataclasses.dataclass(frozen=True)
class ScaleFit:
    """The fitted scalar and whether it came from the fallback ratio."""

    scale: float
    fallback: bool
    reason: str = ""


def _check(name: str, array, last: Tuple[int, ...]) -> np.ndarray:
    out = np.asarray(array, dtype=np.float64)
    if out.ndim != 1 + len(last) or out.shape[1:] != last:
        raise ValueError(f"{name} must have shape (N, {', '.join(map(str, last))}), "
                         f"got {out.shape}")
    if not np.all(np.isfinite(out)):
        raise ValueError(f"{name} holds NaN or infinite values")
    return out


def geodesic_errors_deg(r_pred, r_ref) -> np.ndarray:
    """(N,) angles in degrees between (N, 3, 3) rotation stacks: the diagonal of the
    batched product R_pred @ R_ref^T summed in float64, clamped to [-1, 1], arccos,
    times 180 then over pi (the official torch expression's order)."""
    a = _check("r_pred", r_pred, (3, 3))
    b = _check("r_ref", r_ref, (3, 3))
    if len(a) != len(b):
        raise ValueError(f"r_pred has {len(a)} rotations, r_ref {len(b)}")
    prod = a @ b.transpose(0, 2, 1)
    cos = (prod[:, [0, 1, 2], [0, 1, 2]].sum(axis=-1) - 1) / 2
    return np.arccos(np.clip(cos, -1, 1)) * 180 / np.pi


def fallback_scale(t_ref: np.ndarray, t_pred: np.ndarray) -> float:
    """mean ||t_ref|| / (mean ||t_pred|| + 1e-8), or 1 where that is exactly 0."""
    ratio = (np.linalg.norm(t_ref, axis=1).mean()
             / (np.linalg.norm(t_pred, axis=1).mean() + FALLBACK_EPS))
    return float(ratio) if ratio != 0 else 1.0


def fit_translation_scale(t_ref, t_pred) -> ScaleFit:
    """The scalar c minimising sum_i ||t_ref_i - c t_pred_i||_2 (see the module doc)."""
    ref = _check("t_ref", t_ref, (3,))
    pred = _check("t_pred", t_pred, (3,))
    if len(ref) != len(pred):
        raise ValueError(f"t_ref has {len(ref)} translations, t_pred {len(pred)}")
    import cvxpy as cp  # pylint: disable=import-outside-toplevel
    try:
        c = cp.Variable()
        problem = cp.Problem(cp.Minimize(cp.sum(cp.norm(ref - c * pred, axis=1))), [])
        problem.solve()
        if c.value is None:
            raise ValueError(f"cvxpy status {problem.status}, no value")
        return ScaleFit(float(c.value), False)
    except Exception as e:  # pylint: disable=broad-except  (the official fallback catches all)
        return ScaleFit(fallback_scale(ref, pred), True, f"{type(e).__name__}: {e}")


def translation_errors(t_ref, t_pred, scale: float) -> np.ndarray:
    """(N,) ||scale * t_pred_i - t_ref_i||_2."""
    ref = _check("t_ref", t_ref, (3,))
    pred = _check("t_pred", t_pred, (3,))
    return np.linalg.norm(scale * pred - ref, axis=-1)
