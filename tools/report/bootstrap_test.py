"""The paired bootstrap interval against a direct numpy computation with the same seed."""

import numpy as np
import pytest

from tools.report import bootstrap

_DIFFS = np.random.default_rng(123).normal(0.3, 1.0, size=37)


def _reference(x, seed, resamples):
    """One resample at a time: draw n indices, take the mean; then the percentiles."""
    rng = np.random.default_rng(seed)
    means = [np.mean(x[rng.integers(0, len(x), size=len(x))]) for _ in range(resamples)]
    return np.percentile(means, [2.5, 97.5])


@pytest.mark.parametrize("block_rows", [None, 1, 7])
def test_interval_equals_a_direct_numpy_computation(block_rows):
    got = bootstrap.paired_interval(_DIFFS, seed=5, resamples=500, block_rows=block_rows)
    low, high = _reference(_DIFFS, 5, 500)
    assert (got.low, got.high) == pytest.approx((low, high), rel=1e-12, abs=1e-12)
    assert got.seed == 5 and got.resamples == 500
    assert "seed 5" in got.method and "500 resamples" in got.method


def test_the_seed_is_what_makes_it_reproducible():
    one = bootstrap.paired_interval(_DIFFS, seed=1, resamples=300)
    assert one == bootstrap.paired_interval(_DIFFS, seed=1, resamples=300)
    assert one != bootstrap.paired_interval(_DIFFS, seed=2, resamples=300)


def test_constant_differences_give_a_point_interval_that_excludes_zero():
    got = bootstrap.paired_interval([-0.25] * 6, seed=0, resamples=200)
    assert (got.low, got.high) == (-0.25, -0.25) and got.excludes_zero


def test_an_interval_around_zero_does_not_exclude_it():
    got = bootstrap.paired_interval([-1.0, 1.0] * 10, seed=0, resamples=400)
    assert got.low < 0 < got.high and not got.excludes_zero


def test_the_interval_brackets_the_mean_and_shrinks_with_more_samples():
    small = bootstrap.paired_interval(_DIFFS[:10], seed=0, resamples=1000)
    big = bootstrap.paired_interval(np.tile(_DIFFS[:10], 10), seed=0, resamples=1000)
    mean = float(np.mean(_DIFFS[:10]))
    assert small.low < mean < small.high and big.low < mean < big.high
    assert big.high - big.low < small.high - small.low


def test_fewer_than_two_pairs_has_no_interval():
    assert bootstrap.paired_interval([1.0]) is None
    assert bootstrap.paired_interval([]) is None
    with pytest.raises(ValueError):
        bootstrap.bootstrap_means([], seed=0, resamples=10)
