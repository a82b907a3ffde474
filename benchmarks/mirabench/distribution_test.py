"""FID/KID/FVD/KVD math against direct scipy/numpy computations on fixed features."""

import numpy as np
import pytest
from scipy import linalg

from benchmarks.mirabench import distribution


@pytest.fixture(scope="module")
def feats():
    rng = np.random.default_rng(7)
    real = rng.normal(size=(120, 12))
    fake = rng.normal(0.3, 1.2, size=(110, 12)) + rng.normal(size=(1, 12))
    return real, fake


def _scipy_frechet(x, y):
    mu1, mu2 = x.mean(0), y.mean(0)
    s1, s2 = np.cov(x, rowvar=False), np.cov(y, rowvar=False)
    root = linalg.sqrtm(s1 @ s2).real
    return float(((mu1 - mu2) ** 2).sum() + np.trace(s1 + s2 - 2 * root))


def test_fid_and_fvd_formulas_equal_scipy_sqrtm(feats):
    real, fake = feats
    expected = _scipy_frechet(real, fake)
    assert distribution.frechet_distance(real, fake) == pytest.approx(expected, rel=1e-9)
    assert distribution.frechet_distance_svd(real, fake) == pytest.approx(expected, rel=1e-9)
    assert distribution.frechet_distance(real, real) == pytest.approx(0, abs=1e-9)


def _mmd_loops(x, y):
    d = x.shape[1]
    k = lambda a, b: (a @ b / d + 1) ** 3  # noqa: E731
    m, n = len(x), len(y)
    xx = sum(k(x[i], x[j]) for i in range(m) for j in range(m) if i != j) / (m * (m - 1))
    yy = sum(k(y[i], y[j]) for i in range(n) for j in range(n) if i != j) / (n * (n - 1))
    xy = sum(k(x[i], y[j]) for i in range(m) for j in range(n)) / (m * n)
    return xx + yy - 2 * xy


def test_polynomial_mmd_equals_the_definition(feats):
    real, fake = feats
    assert distribution.polynomial_mmd(real[:15], fake[:15]) == pytest.approx(
        _mmd_loops(real[:15], fake[:15]), rel=1e-10)


def test_kid_one_full_subset_is_the_mmd_and_seeded(feats):
    real, fake = feats
    mean, std = distribution.kernel_distance(real[:100], fake[:100], seed=0, subsets=1)
    assert mean == pytest.approx(distribution.polynomial_mmd(real[:100], fake[:100]))
    assert std == 0
    a = distribution.kernel_distance(real, fake, seed=3, subsets=5)
    assert a == distribution.kernel_distance(real, fake, seed=3, subsets=5)
    assert a != distribution.kernel_distance(real, fake, seed=4, subsets=5)


def test_kid_needs_100_frames(feats):
    real, fake = feats
    with pytest.raises(distribution.TooFewSamples, match="kid subset size is too big"):
        distribution.kernel_distance(real, fake[:99], seed=0)
    with pytest.raises(distribution.TooFewSamples):
        distribution.frechet_distance(real, fake[:1])
