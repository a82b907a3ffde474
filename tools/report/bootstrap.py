"""Paired bootstrap 95% interval of a mean difference (numpy, seeded).

The resamples are the rows of `numpy.random.default_rng(seed).integers(0, n, (B, n))`,
drawn in consecutive blocks of rows so that memory stays bounded; each row's mean of
the paired differences is one bootstrap mean, and the interval is the 2.5th and 97.5th
percentiles of the B means (numpy's default linear interpolation).
"""

import dataclasses
from typing import Optional, Sequence

import numpy as np

DEFAULT_SEED = 0
DEFAULT_RESAMPLES = 2000
_BLOCK_VALUES = 4_000_000  # indices drawn per block (32 MB of int64)


@dataclasses.dataclass(frozen=True)
class BootstrapInterval:
    low: float
    high: float
    seed: int
    resamples: int

    @property
    def excludes_zero(self) -> bool:
        return self.low > 0 or self.high < 0

    @property
    def method(self) -> str:
        return (f"paired bootstrap, percentile, {self.resamples} resamples, "
                f"numpy default_rng seed {self.seed}")


def bootstrap_means(values: Sequence[float], seed: int, resamples: int,
                    block_rows: Optional[int] = None) -> np.ndarray:
    """The `resamples` bootstrap means of `values` (see the module docstring)."""
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


def paired_interval(differences: Sequence[float], seed: int = DEFAULT_SEED,
                    resamples: int = DEFAULT_RESAMPLES,
                    block_rows: Optional[int] = None) -> Optional[BootstrapInterval]:
    """95% interval of the mean of per-sample differences (B minus A, sample by sample);
    None with fewer than two pairs."""
    if len(differences) < 2:
        return None
    means = bootstrap_means(differences, seed, resamples, block_rows)
    low, high = np.percentile(means, [2.5, 97.5])
    return BootstrapInterval(float(low), float(high), seed, resamples)
