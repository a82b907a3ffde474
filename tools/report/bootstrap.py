"""Paired bootstrap 95% interval of a mean difference (numpy, seeded).

The resamples are the rows of `numpy.random.default_rng(seed).integers(0, n, (B, n))`,
drawn in consecutive blocks of rows so that memory stays bounded (the scorecard's own
bootstrap, benchmarks/common/intervals.py); each row's mean of the paired differences is
one bootstrap mean, and the interval is the 2.5th and 97.5th percentiles of the B means
(numpy's default linear interpolation).
"""

import dataclasses
from typing import Optional, Sequence

import numpy as np

from benchmarks.common.intervals import bootstrap_means

DEFAULT_SEED = 0
DEFAULT_RESAMPLES = 2000


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
