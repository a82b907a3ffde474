"""Depth consistency of frame spans: Depth Anything V2 depth-map cosines of sampled frames.

Arithmetic (the 3D geometry consistency of a released video benchmark's `geometry.py`,
quirks kept), for each span (start, end):

- start = max(0, min(start, N-1)), end = max(start, min(end, N-1)),
  n_range = end - start + 1; n_range <= 1 samples nothing (no pair, the model does not
  run); otherwise the frames start + int(i * (n_range-1) / 2) for i = 0, 1, 2.
- Per frame: d = predicted_depth.squeeze(); d = (d - min) / (max - min + 1e-8);
  flatten; L2-normalise (float32 torch).
- The 2 consecutive pairs: cosine_similarity clipped to [0, 1]; the span's mean and min
  of those (unrounded; None without a pair).

Several spans combine as the mean of the span means and the min of the span mins, over
the spans that have a pair. How a benchmark rounds, or scores a span without a pair, is
the benchmark's (it has every pair cosine). Each distinct frame of all spans goes through
one batched model call (`span_calls` names them), or its depth map comes from calls
shared with other clips (`consistency_from_depths`).
"""

import dataclasses
from typing import List, Optional, Sequence, Tuple

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
        mean / min: Of pair_similarities; None without a pair.
    """

    name: str
    start: int
    end: int
    indices: Tuple[int, ...]
    pair_similarities: Tuple[float, ...]
    mean: Optional[float]
    min: Optional[float]


@dataclasses.dataclass(frozen=True)
class DepthConsistencyResult:
    """The combined (mean, min) of several spans of one clip (None when no span has a
    pair), and each span's values."""

    mean: Optional[float]
    min: Optional[float]
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


def _summary(sims: Sequence[float]) -> Tuple[Optional[float], Optional[float]]:
    if not sims:
        return None, None
    return float(np.mean(sims)), float(np.min(sims))


def span_calls(spans: Sequence[Tuple[str, int, int]], num_frames: int
               ) -> Tuple[List[Tuple[str, int, int, List[int]]], List[int]]:
    """([(name, clamped start, clamped end, sampled indices)] of each span, the distinct
    frames the model sees for all of them, sorted; empty when no span samples a frame).

    Raises:
        ValueError: If num_frames is not positive.
    """
    calls = [(name,) + span_indices(start, end, num_frames) for name, start, end in spans]
    return calls, sorted({i for _, _, _, indices in calls for i in indices})


def consistency_from_depths(calls, depths) -> DepthConsistencyResult:
    """The spans' depth consistency from the depth map of each sampled frame.

    Args:
        calls: From span_calls.
        depths: {frame index: depth map (tensor or array)} of every sampled frame.
    """
    scored = []
    for name, start, end, indices in calls:
        sampled = [depths[i] for i in indices]
        sims = pair_similarities(sampled) if len(sampled) >= 2 else []
        mean, minimum = _summary(sims)
        scored.append(SpanDepthConsistency(name, start, end, tuple(indices), tuple(sims), mean,
                                           minimum))
    paired = [span for span in scored if span.pair_similarities]
    if not paired:
        return DepthConsistencyResult(None, None, tuple(scored))
    return DepthConsistencyResult(sum(span.mean for span in paired) / len(paired),
                                  min(span.min for span in paired), tuple(scored))


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
    calls, distinct = span_calls(spans, len(frames))
    depths = {}
    if distinct:
        maps = depth_anything.depth_maps(model, processor, [frames[i] for i in distinct], device)
        depths = dict(zip(distinct, maps))
    return consistency_from_depths(calls, depths)
