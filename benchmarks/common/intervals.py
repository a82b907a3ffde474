"""The 95% interval a scorecard gives a metric's mean over samples, and which kind it is.

The normal approximation (mean ± 1.96 standard errors) is the default. Where the
per-sample values are far from normal, a percentile bootstrap of the mean replaces it,
so that a skewed metric (most clips near a bound, a few far out) does not get a
symmetric interval reaching past what the mean can be. "Far from normal": at least
`MIN_BOOTSTRAP_N` values (below that neither interval can be trusted, and the normal one
is kept) whose sample skewness g1 exceeds `SKEW_LIMIT` in absolute value (Bulmer's rule of
thumb for a highly skewed distribution). The bootstrap is seeded (`SEED`) so that a
scorecard is reproducible; each metric records the method it carries (`method_text`).
"""

import dataclasses
import math
from typing import Optional, Sequence

import numpy as np

NORMAL = "normal"
BOOTSTRAP = "bootstrap"
SEED = 0
RESAMPLES = 2000
SKEW_LIMIT = 1.0
MIN_BOOTSTRAP_N = 10
_BLOCK_VALUES = 4_000_000  # indices drawn per block (32 MB of int64)


@dataclasses.dataclass(frozen=True)
class MeanInterval:
    mean: float
    low: Optional[float]   # None with fewer than two values
    high: Optional[float]
    method: str = NORMAL   # NORMAL or BOOTSTRAP
    skewness: float = 0.0

    @property
    def method_text(self) -> str:
        """What the scorecard records as the interval's method."""
        if self.low is None:
            return ""
        if self.method == NORMAL:
            return "normal approximation (mean ± 1.96 standard errors)"
        return (f"percentile bootstrap of the mean, {RESAMPLES} resamples, numpy "
                f"default_rng seed {SEED} (the values are skewed: g1 = {self.skewness:.2f})")


def bootstrap_means(values: Sequence[float], seed: int, resamples: int,
                    block_rows: Optional[int] = None) -> np.ndarray:
    """`resamples` bootstrap means of `values`: the rows of
    `numpy.random.default_rng(seed).integers(0, n, (resamples, n))`, drawn in consecutive
    blocks of rows so that memory stays bounded, each row's mean one bootstrap mean."""
    x = np.asarray(values, dtype=np.float64)
    n = x.size
    if n == 0 or resamples < 1:
        raise ValueError(f"need values and resamples >= 1, got n={n}, resamples={resamples}")
    rng = np.random.default_rng(seed)
    rows = block_rows or max(1, _BLOCK_VALUES // n)
    means = np.empty(resamples, dtype=np.float64)
    for start in range(0, resamples, rows):
        count = min(rows, resamples - start)
        idx = rng.integers(0, n, size=(count, n))
        means[start:start + count] = x[idx].mean(axis=1)
    return means


def skewness(values: Sequence[float], mean: float) -> float:
    """The sample skewness g1 = m3 / m2^1.5 (0 when every value is equal)."""
    n = len(values)
    m2 = math.fsum((v - mean) ** 2 for v in values) / n
    if m2 <= 0.0:
        return 0.0
    m3 = math.fsum((v - mean) ** 3 for v in values) / n
    return m3 / m2 ** 1.5


def mean_interval(values: Sequence[float]) -> MeanInterval:
    """The mean of `values` and its 95% interval (see the module docstring)."""
    n = len(values)
    mean = math.fsum(values) / n
    if n < 2:
        return MeanInterval(mean, None, None)
    g1 = skewness(values, mean)
    if n >= MIN_BOOTSTRAP_N and abs(g1) > SKEW_LIMIT:
        low, high = np.percentile(bootstrap_means(values, SEED, RESAMPLES), [2.5, 97.5])
        return MeanInterval(mean, float(low), float(high), BOOTSTRAP, g1)
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = 1.96 * math.sqrt(var / n)
    return MeanInterval(mean, mean - half, mean + half, NORMAL, g1)
