"""Flow warp-error smoothness of frame spans (a RAFT-style photometric warp check).

Arithmetic (transcribed from the official `automated/metrics/temporal.py`, quirks kept):

- For each consecutive pair (a, b) of sampled frames, with t1, t2 the RGB
  [0, 1] frames and `flow` the a->b flow: `wx = (x + flow_x)/(W-1)*2-1`,
  `wy = (y + flow_y)/(H-1)*2-1`, `warped = grid_sample(t1, grid, bilinear,
  padding_mode="border", align_corners=True)` and `err = mean(|warped - t2|)`.
- A span over `iter_indices(start, end, sample_step)` scores
  `exp(-mean(err) / 0.15)`, or 0.0 when fewer than 3 frames are sampled.
- Several spans: the plain mean of their scores (a 0.0 span included), 0.0 when
  there are none. Which spans a benchmark scores, and how it rounds, is the
  benchmark's business (benchmarks/<id>/).

The flow function is pluggable (metrics.flow.raft.RaftFlow; metrics.flow.opencv_dis.DisFlow,
weight-free): it takes a list of (frame_a, frame_b) BGR uint8 pairs and returns their
(P, 2, H, W) flows, as a torch tensor or a numpy array. The warp runs on the flow's device.
"""

import dataclasses
import math
from typing import Callable, Sequence, Tuple, Union

import numpy as np
import torch
import torch.nn.functional as F

from metrics.flow import tensors
from metrics.video import sampling

ERROR_SCALE = 0.15
MIN_SAMPLED_FRAMES = 3
DEFAULT_WARP_BATCH = 8

FlowFn = Callable[[Sequence[Tuple[np.ndarray, np.ndarray]]], Union[torch.Tensor, np.ndarray]]


@dataclasses.dataclass(frozen=True)
class SpanSmoothness:
    """The warp smoothness of one span of frames.

    Attributes:
        name: The caller's label of the span.
        start: First index asked for.
        end: Last index asked for (inclusive).
        indices: The sampled frame indices.
        pair_errors: Warp error of each consecutive sampled pair.
        score: exp(-mean(pair_errors) / 0.15), or 0.0 with < 3 sampled frames.
    """

    name: str
    start: int
    end: int
    indices: Tuple[int, ...]
    pair_errors: Tuple[float, ...]
    score: float


@dataclasses.dataclass(frozen=True)
class WarpSmoothnessResult:
    """The warp smoothness of several spans of one clip.

    Attributes:
        mean: Mean of the spans' scores (unrounded), 0.0 with no span.
        spans: Each span's SpanSmoothness, in the order asked for.
    """

    mean: float
    spans: Tuple[SpanSmoothness, ...]


def warp_errors(images1: torch.Tensor, images2: torch.Tensor, flows: torch.Tensor) -> list:
    """The photometric warp error of each pair, on the flows' device.

    Args:
        images1: (B, 3, H, W) RGB [0, 1] float32 tensor, the first frames.
        images2: Same shape, the second frames.
        flows: (B, 2, H, W) flows from images1 to images2 (x first).

    Returns:
        B floats, `mean(|warped - images2|)` over channels and pixels, where
        warped samples images1 (sic) at (x + flow_x, y + flow_y).

    Raises:
        ValueError: If the shapes disagree.
    """
    if images1.shape != images2.shape or images1.dim() != 4:
        raise ValueError(f"image batches differ: {tuple(images1.shape)} and "
                         f"{tuple(images2.shape)}")
    batch, _, height, width = images1.shape
    if tuple(flows.shape) != (batch, 2, height, width):
        raise ValueError(f"expected flows of shape {(batch, 2, height, width)}, got "
                         f"{tuple(flows.shape)}")
    ys, xs = torch.meshgrid(
        torch.arange(height, device=flows.device, dtype=flows.dtype),
        torch.arange(width, device=flows.device, dtype=flows.dtype), indexing="ij")
    wx = (xs + flows[:, 0]) / (width - 1) * 2 - 1
    wy = (ys + flows[:, 1]) / (height - 1) * 2 - 1
    grid = torch.stack([wx, wy], dim=-1)
    # Official quirk (spec §12.3): the image sampled with the img1->img2 flow is
    # img1 itself, not img2 as in a textbook backward warp. Replicated on purpose.
    warped = F.grid_sample(images1, grid, mode="bilinear", padding_mode="border",
                           align_corners=True)
    return [(warped[i] - images2[i]).abs().mean().item() for i in range(batch)]


def _as_flow_tensor(flows, count, height, width) -> torch.Tensor:
    flows = torch.as_tensor(flows)
    if tuple(flows.shape) != (count, 2, height, width):
        raise ValueError(f"the flow function returned shape {tuple(flows.shape)}, expected "
                         f"{(count, 2, height, width)}")
    return flows.to(torch.float32)


def span_smoothness(frames, name: str, start: int, end: int, sample_step: int, flow_fn: FlowFn,
                    warp_batch: int = DEFAULT_WARP_BATCH) -> SpanSmoothness:
    """The warp smoothness of the frames `iter_indices(start, end, sample_step)`.

    Args:
        frames: (N, H, W, 3) BGR uint8 frames.
        name: Label of the span (kept in the result).
        start: First index (clipped to 0).
        end: Last index, inclusive (clipped to N - 1).
        sample_step: Positive stride.
        flow_fn: Flow function; called once with all consecutive sampled pairs.
        warp_batch: Pairs warped per grid_sample call (memory bound only).

    Returns:
        A SpanSmoothness; its score is 0.0 (and flow_fn is not called) when fewer
        than 3 frames are sampled, as in the official code.
    """
    indices = sampling.iter_indices(start, end, sample_step, len(frames))
    if len(indices) < MIN_SAMPLED_FRAMES:
        return SpanSmoothness(name, start, end, tuple(indices), (), 0.0)
    pairs = [(frames[a], frames[b]) for a, b in zip(indices, indices[1:])]
    height, width = pairs[0][0].shape[:2]
    flows = _as_flow_tensor(flow_fn(pairs), len(pairs), height, width)
    errors = []
    for first in range(0, len(pairs), warp_batch):
        chunk = pairs[first:first + warp_batch]
        images1 = tensors.to_unit_rgb(np.stack([a for a, _ in chunk]), flows.device)
        images2 = tensors.to_unit_rgb(np.stack([b for _, b in chunk]), flows.device)
        errors.extend(warp_errors(images1, images2, flows[first:first + len(chunk)]))
    score = math.exp(-float(np.mean(errors)) / ERROR_SCALE)
    return SpanSmoothness(name, start, end, tuple(indices), tuple(errors), score)


def flow_warp_smoothness(frames, spans: Sequence[Tuple[str, int, int]], sample_step: int,
                         flow_fn: FlowFn,
                         warp_batch: int = DEFAULT_WARP_BATCH) -> WarpSmoothnessResult:
    """The mean warp smoothness of the given spans of one clip.

    Args:
        frames: (N, H, W, 3) BGR uint8 frames.
        spans: (name, start, end) of each span, end inclusive; may be empty.
        sample_step: Positive stride within a span.
        flow_fn: Flow function (see the module docstring).
        warp_batch: Pairs warped per grid_sample call.

    Returns:
        A WarpSmoothnessResult: the plain mean of the spans' scores (a 0.0 span
        included, unrounded), 0.0 with no span.

    Raises:
        ValueError: If frames is empty or sample_step is not a positive int.
    """
    if len(frames) == 0:
        raise ValueError("expected at least one frame")
    sampling.iter_indices(0, 0, sample_step, 1)  # Validates sample_step even if no span runs.
    scored = tuple(span_smoothness(frames, name, start, end, sample_step, flow_fn, warp_batch)
                   for name, start, end in spans)
    if not scored:
        return WarpSmoothnessResult(0.0, ())
    return WarpSmoothnessResult(float(np.mean([span.score for span in scored])), scored)
