"""The frame-pair sum shared by subject_consistency and background_consistency (spec §5.2,
§9 quirk 3; upstream subject_consistency.py:49-64, background_consistency.py:44-56).

With f_t the L2-normalised feature of frame t, upstream walks t = 1..T-1 and adds
(max(0, cos(f_{t-1}, f_t)) + max(0, cos(f_0, f_t))) / 2 to a Python float: each cosine
is clamped at 0 BEFORE the two are averaged. Each cosine is `F.cosine_similarity(...)
.item()` of the two (1, D) rows, as upstream computes it; the sum is accumulated in the
same order. The video value is sum / (T - 1); the single-GPU aggregate pools the sums
and the pair counts over videos.
"""

from typing import Tuple

import torch
import torch.nn.functional as F

from benchmarks.vbench import dimension


def pair_sum(features: torch.Tensor) -> Tuple[float, int]:
    """(Σ clamped pair values, number of pairs) of (T >= 2, D) L2-normalised features.

    Raises:
        ValueError: Fewer than 2 frames (upstream divides by T - 1 = 0 and crashes).
    """
    if features.ndim != 2 or features.shape[0] < 2:
        raise ValueError(f"need (T >= 2, D) frame features, got {tuple(features.shape)}: "
                         "the official value divides by T - 1")
    total, count = 0.0, 0
    first = features[:1]
    for t in range(1, features.shape[0]):
        current = features[t:t + 1]
        previous = max(0.0, F.cosine_similarity(features[t - 1:t], current).item())
        to_first = max(0.0, F.cosine_similarity(first, current).item())
        total += (previous + to_first) / 2
        count += 1
    return total, count


def value(features: torch.Tensor, with_extras: bool) -> dimension.Value:
    """The per-video Value: sum / (T - 1), pooled (sum, pairs); background's extras
    `video_sim` and `cnt_per_video` (background_consistency.py:58-62) when asked."""
    total, count = pair_sum(features)
    extras = {"video_sim": total, "cnt_per_video": count} if with_extras else {}
    return dimension.Value(total / (features.shape[0] - 1), extras, (total, float(count)))
