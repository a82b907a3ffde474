"""Depth consistency of frame spans: Depth Anything V2 depth-map cosines of sampled frames.

Arithmetic (transcribed from the official `geometry_3d_consistency(gen, n_sample=3, start,
end)` of `automated/metrics/geometry.py`, quirks kept), for each span (start, end):

- start = max(0, min(start, N-1)), end = max(start, min(end, N-1)),
  n_range = end - start + 1; n_range <= 1 scores (0.0, 0.0) without running the model;
  otherwise the frames start + int(i * (n_range-1) / 2) for i = 0, 1, 2.
- Per frame: d = predicted_depth.squeeze(); d = (d - min) / (max - min + 1e-8);
  flatten; L2-normalise (float32 torch, as the official code).
- The 2 consecutive pairs: cosine_similarity clipped to [0, 1]; the span scores
  (round(mean, 4), round(min, 4)).

Several spans combine as round(mean of the span means, 4) and round(min of the span mins,
4). The official code runs the model twice per pair (4 calls per span); here each
distinct frame of all spans goes through one batched call.
"""

import dataclasses
from typing import List, Sequence, Tuple

import numpy as np
import torch
import torch.nn.functional as F

from metrics.depth import depth_anything
from metrics.video import sampling

N_SAMPLE = 3
MINMAX_EPS = 1e-8


@dataclasses.dataclass(frozen=True)
class SpanDepthConsistency:
    """The depth consistency of one span (one official call).

    Attributes:
        name: The caller's label of the span.
        start / end: The (clamped) inclusive range.
        indices: Sampled frames; empty when n_range <= 1.
        pair_similarities: Clipped cosines of consecutive sampled frames.
        mean / min: The call's values (rounded to 4 dp), (0.0, 0.0) when nothing ran.
    """

    name: str
    start: int
    end: int
    indices: Tuple[int, ...]
    pair_similarities: Tuple[float, ...]
    mean: float
    min: float


@dataclasses.dataclass(frozen=True)
class DepthConsistencyResult:
    """The combined (mean, min) of several spans of one clip, and each span's values."""

    mean: float
    min: float
    spans: Tuple[SpanDepthConsistency, ...]


def span_indices(start: int, end: int, num_frames: int) -> Tuple[int, int, List[int]]:
    """(clamped start, clamped end, sampled indices); no indices when n_range <= 1."""
    if num_frames <= 0:
        raise ValueError(f"num_frames must be positive, got {num_frames}")
    last = num_frames - 1
    start = max(0, min(start, last))
    end = max(start, min(end, last))
    if end - start + 1 <= 1:
        return start, end, []
    return start, end, sampling.evenly_spaced(start, end, N_SAMPLE)


def depth_vector(depth) -> torch.Tensor:
    """(1, H*W) float32: min-max normalised (eps 1e-8), flattened, L2-normalised."""
    depth = depth if isinstance(depth, torch.Tensor) else torch.as_tensor(np.asarray(depth))
    depth = depth.float().squeeze()
    depth = (depth - depth.min()) / (depth.max() - depth.min() + MINMAX_EPS)
    return F.normalize(depth.flatten().unsqueeze(0), dim=-1)


def pair_similarities(depths: Sequence) -> List[float]:
    """Clipped cosine of each consecutive pair of depth maps."""
    vectors = [depth_vector(d) for d in depths]
    return [float(np.clip(float(F.cosine_similarity(a, b.to(a.device)).item()), 0.0, 1.0))
            for a, b in zip(vectors[:-1], vectors[1:])]


def _summary(sims: Sequence[float]) -> Tuple[float, float]:
    if not sims:
        return 0.0, 0.0
    return round(float(np.mean(sims)), 4), round(float(np.min(sims)), 4)


def span_from_depths(depths: Sequence) -> Tuple[float, float]:
    """One span's (round(mean, 4), round(min, 4)); (0.0, 0.0) with fewer than 2 maps."""
    return _summary(pair_similarities(depths) if len(depths) >= 2 else [])


def combine_spans(*span_values: Tuple[float, float]) -> Tuple[float, float]:
    """(round(mean of the means, 4), round(min of the mins, 4)) of the spans' (mean, min).

    Raises:
        ValueError: With no span.
    """
    if not span_values:
        raise ValueError("expected at least one span")
    means = [mean for mean, _ in span_values]
    return (round(sum(means) / len(means), 4), round(min(m for _, m in span_values), 4))


def consistency_from_depths(*span_depths: Sequence) -> Tuple[float, float]:
    """The combined (mean, min) from each span's sampled depth maps, in order (3 per span,
    or none when n_range <= 1)."""
    return combine_spans(*(span_from_depths(depths) for depths in span_depths))


def depth_consistency_details(frames: Sequence[np.ndarray],
                              spans: Sequence[Tuple[str, int, int]], model, processor,
                              device) -> DepthConsistencyResult:
    """The depth consistency of the given spans of a clip, with each span's indices and
    pair cosines.

    Args:
        frames: The clip's BGR uint8 frames, N >= 1.
        spans: (name, start, end) of each span, end inclusive; at least one.
        model, processor: From depth_anything.load_depth_anything.
        device: Where the model is.
    """
    calls = [(name,) + span_indices(start, end, len(frames)) for name, start, end in spans]
    distinct = sorted({i for _, _, _, indices in calls for i in indices})
    depths = {}
    if distinct:
        maps = depth_anything.depth_maps(model, processor, [frames[i] for i in distinct], device)
        depths = dict(zip(distinct, maps))
    scored = []
    for name, start, end, indices in calls:
        sampled = [depths[i] for i in indices]
        sims = pair_similarities(sampled) if len(sampled) >= 2 else []
        mean, minimum = _summary(sims)
        scored.append(SpanDepthConsistency(name, start, end, tuple(indices), tuple(sims), mean,
                                           minimum))
    mean, minimum = combine_spans(*[(span.mean, span.min) for span in scored])
    return DepthConsistencyResult(mean, minimum, tuple(scored))
