"""FID, KID, FVD and KVD math on fixed features (spec §3.6, §3.7), float64 numpy.

FID / FVD: the Frechet distance between Gaussians fitted to the two feature sets, with
unbiased (N-1) covariances. FID as torchmetrics' FrechetInceptionDistance computes it:
||mu1-mu2||^2 + tr(S1) + tr(S2) - 2 sum(sqrt(eigvals(S1 S2))).real. FVD as the official
fvd.py (TF-GAN style): tr(S1+S2) - 2 tr(sqrt(sqrt(S1) S2 sqrt(S1))), square roots by SVD,
plus ||mu1-mu2||^2. Both equal tr((S1^.5 - S2^.5)...) in exact arithmetic; they differ in
rounding only.

KID: torchmetrics' KernelInceptionDistance: `subsets` times, draw `subset_size` real and
fake rows without replacement (randperm), unbiased polynomial-kernel MMD^2 (degree 3,
gamma 1/d, coef 1); kid_mean is their mean. Upstream draws from the unseeded global
torch RNG; ours from numpy's default_rng(seed), recorded. KVD: the same MMD^2 on the
full sets, no subsets (sklearn polynomial_kernel defaults).
"""

from typing import Tuple

import numpy as np

KID_SUBSETS = 100
KID_SUBSET_SIZE = 100


class TooFewSamples(ValueError):
    """A set has fewer samples than the statistic needs (the official code raises)."""


def _stats(features: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    x = np.asarray(features, np.float64)
    if x.ndim != 2 or x.shape[0] < 2:
        raise TooFewSamples(f"more than one sample is required, got {x.shape[0]}")
    return x.mean(axis=0), np.cov(x, rowvar=False)


def frechet_distance(real: np.ndarray, fake: np.ndarray) -> float:
    """FID's formula (torchmetrics: eigenvalues of S1 S2)."""
    mu1, s1 = _stats(real)
    mu2, s2 = _stats(fake)
    c = np.sqrt(np.linalg.eigvals(s1 @ s2).astype(np.complex128)).real.sum()
    return float(np.sum((mu1 - mu2) ** 2) + np.trace(s1) + np.trace(s2) - 2 * c)


def _sqrtm_svd(mat: np.ndarray) -> np.ndarray:
    u, s, vt = np.linalg.svd(mat)
    return (u * np.sqrt(s)) @ vt


def frechet_distance_svd(real: np.ndarray, fake: np.ndarray) -> float:
    """FVD's formula (the official fvd.py: matrix square roots by SVD)."""
    mu1, s1 = _stats(real)
    mu2, s2 = _stats(fake)
    root = _sqrtm_svd(s1)
    trace = np.trace(s1 + s2) - 2 * np.trace(_sqrtm_svd(root @ s2 @ root))
    return float(trace + np.sum((mu1 - mu2) ** 2))


def polynomial_mmd(x: np.ndarray, y: np.ndarray, degree: int = 3, coef: float = 1.0) -> float:
    """Unbiased MMD^2 with k(a, b) = (a.b / d + coef)^degree (equal sizes, as KID's)."""
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    gamma = 1.0 / x.shape[1]
    k_xx = (x @ x.T * gamma + coef) ** degree
    k_yy = (y @ y.T * gamma + coef) ** degree
    k_xy = (x @ y.T * gamma + coef) ** degree
    m, n = x.shape[0], y.shape[0]
    value = (k_xx.sum() - np.trace(k_xx)) / (m * (m - 1))
    value += (k_yy.sum() - np.trace(k_yy)) / (n * (n - 1))
    return float(value - 2 * k_xy.sum() / (m * n))


def kernel_distance(real: np.ndarray, fake: np.ndarray, seed: int,
                    subsets: int = KID_SUBSETS,
                    subset_size: int = KID_SUBSET_SIZE) -> Tuple[float, float]:
    """KID (mean, population std over subsets); TooFewSamples below `subset_size`."""
    for name, feats in (("generated", fake), ("GT", real)):
        if len(feats) < subset_size:
            raise TooFewSamples(f"KID needs at least {subset_size} {name} frames (subset "
                                f"size), got {len(feats)}; the official code raises "
                                "\"kid subset size is too big!\"")
    rng = np.random.default_rng(seed)
    scores = []
    for _ in range(subsets):
        r = real[rng.permutation(len(real))[:subset_size]]
        f = fake[rng.permutation(len(fake))[:subset_size]]
        scores.append(polynomial_mmd(r, f))
    return float(np.mean(scores)), float(np.std(scores))
