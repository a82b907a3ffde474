"""Raw metric score to WorldScore's [0, 1] score, as the official evaluator computes it.

The arithmetic of `evaluator.py::normalize_score` / `renormalize_score` (spec §5), on the
constants of aspects.py, operation for operation (Python's max/min in the official
argument order, `sum/len` for motion_smoothness, `np.prod(...) ** (1/len)` for
camera_error), so that results equal the official ones bit for bit.

The failure fallback (§5.4): a metric that raised gets the raw score -100 when higher is
better, else +100, which normalises to 0. For the two composite metrics the official
`higher_is_better` is a list (truthy), so the fallback is -100 and `normalize_score` then
iterates over an int and crashes the job: `failure_score` raises `FallbackCrash` there.
"""

from typing import Sequence, Tuple, Union

import numpy as np

from benchmarks.worldscore import aspects

Score = Union[float, Sequence[float]]


class FallbackCrash(ValueError):
    """Where the official code crashes instead of producing a number."""


def _min_max(score, lo, hi, higher_is_better) -> float:
    score = max(lo, min(hi, score))
    normalized = (score - lo) / (hi - lo)
    if not higher_is_better:
        normalized = 1 - normalized
    return normalized


def _z_score(score, norm: aspects.ZScore) -> float:
    x_prime = ((score - norm.avg) / norm.std - norm.z_min) / (norm.z_max - norm.z_min)
    if not norm.higher_is_better:
        x_prime = 1 - x_prime
    normalized = norm.range[0] + (norm.range[1] - norm.range[0]) * x_prime
    return max(0.0, min(1.0, normalized))


def is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def normalize(metric: aspects.Metric, score: Score) -> float:
    """`score_normalized` of a raw `score` (a list of the components for the composite
    metrics). ValueError when the score has the wrong shape for the metric."""
    norm = metric.norm
    if metric.combine is None:
        if not is_number(score):
            raise ValueError(f"{metric.name}: expected a number, found {score!r}")
        if isinstance(norm, aspects.ZScore):
            return _z_score(score, norm)
        return _min_max(score, norm.empirical_min, norm.empirical_max, norm.higher_is_better)
    parts = aspects.COMPONENTS[metric.name]
    if (not isinstance(score, (list, tuple)) or len(score) != len(parts)
            or not all(is_number(s) for s in score)):
        raise ValueError(f"{metric.name}: expected a list of {len(parts)} numbers "
                         f"[{', '.join(parts)}], found {score!r}")
    normalized = [_min_max(s, lo, hi, better) for s, hi, lo, better in
                  zip(score, norm.empirical_max, norm.empirical_min, norm.higher_is_better)]
    if metric.combine == "arithmetic":
        return sum(normalized) / len(normalized)
    return float(np.prod(normalized) ** (1 / len(normalized)))  # np.float64 -> its float


def failure_score(metric: aspects.Metric) -> Tuple[float, float]:
    """(score, score_normalized) the official evaluator records for a metric that raised;
    FallbackCrash where the official job crashes instead (composite metrics)."""
    if metric.combine is not None:
        raise FallbackCrash(
            f"{metric.name} failed; the official evaluator's fallback (-100, since its list "
            "higher_is_better is truthy) then crashes normalize_score (iterating an int), "
            "so the official job records nothing for this instance")
    higher = metric.norm.higher_is_better
    score = -100 if higher else 100
    return score, normalize(metric, score)


def inverse_z(metric: aspects.Metric, normalized: float) -> float:
    """The raw score that maps to `normalized` in (0, 1) for a z-score metric (for tests
    and documentation: the spec §5.2 test vectors)."""
    norm = metric.norm
    x_prime = (normalized - norm.range[0]) / (norm.range[1] - norm.range[0])
    return norm.avg + norm.std * (norm.z_min + x_prime * (norm.z_max - norm.z_min))
