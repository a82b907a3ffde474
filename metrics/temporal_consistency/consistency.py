"""Temporal consistency of a clip from per-frame embeddings: adjacent and first-frame cosines.

With f_t the embedding of frame t (t = 0..N-1):

    score = mean_{t=1..N-1} [ (max(0, cos(f_{t-1}, f_t)) + max(0, cos(f_0, f_t))) / 2 ]

Cosines are computed in float64 from the (float32) embeddings, which renormalises them
(normalised or raw embeddings give the same value); an official per-pair
`F.cosine_similarity(...).item()` loop computes each cosine in float32, a difference of
float rounding (~1e-7) only.
"""

from typing import List

import numpy as np


def pair_scores(features) -> List[float]:
    """(max(0, cos(f_{t-1}, f_t)) + max(0, cos(f_0, f_t))) / 2 for t = 1..N-1.

    Args:
        features: (N, D) array (or CPU tensor), one row per frame in order.

    Raises:
        ValueError: If features is not (N, D) with N >= 2, or a row is all zeros.
    """
    f = np.asarray(features, dtype=np.float64)
    if f.ndim != 2 or f.shape[0] < 2:
        raise ValueError(f"expected (N >= 2, D) frame embeddings, got {tuple(f.shape)}")
    norms = np.linalg.norm(f, axis=1, keepdims=True)
    if not np.all(norms > 0):
        raise ValueError("a frame embedding is all zeros: its cosine is undefined")
    f = f / norms
    previous = np.sum(f[:-1] * f[1:], axis=1)
    first = f[1:] @ f[0]
    return [(max(0.0, float(p)) + max(0.0, float(q))) / 2 for p, q in zip(previous, first)]


def first_and_adjacent_consistency(features) -> float:
    """The mean of `pair_scores(features)` (see the module docstring)."""
    scores = pair_scores(features)
    return sum(scores) / len(scores)
