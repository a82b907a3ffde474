"""MemoBench MotionSmoothness: RAFT warp error over the V and R phases (spec §4.1).

Official arithmetic, transcribed from the spec (`automated/metrics/temporal.py`):

- For each consecutive pair (a, b) of sampled frames, with t1, t2 the RGB
  [0, 1] frames and `flow` the a->b flow: `wx = (x + flow_x)/(W-1)*2-1`,
  `wy = (y + flow_y)/(H-1)*2-1`, `warped = grid_sample(t1, grid, bilinear,
  padding_mode="border", align_corners=True)` and `err = mean(|warped - t2|)`.
- A call (phase) over `iter_indices(start, end, sample_step)` scores
  `exp(-mean(err) / 0.15)`, or 0.0 when fewer than 3 frames are sampled.
- A clip runs V = (0, h) if h >= 2 and R = (r, N-1) if N-1-r >= 2;
  TemporalScore = the mean of the calls that ran (a 0.0 call included), or
  0.0 when none ran, rounded to 4 dp.

The flow function is pluggable (metrics.flow.raft.RaftFlow, official;
metrics.flow.opencv_dis.DisFlow, not official): it takes a list of (frame_a, frame_b)
BGR uint8 pairs and returns their (P, 2, H, W) flows, as a torch tensor or a
numpy array. The warp runs on the flow's device.
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
MIN_PHASE_SPAN = 2
DEFAULT_WARP_BATCH = 8

FlowFn = Callable[[Sequence[Tuple[np.ndarray, np.ndarray]]], Union[torch.Tensor, np.ndarray]]


@dataclasses.dataclass(frozen=True)
class PhaseScore:
    """One MotionSmoothness call.

    Attributes:
        name: "V" or "R".
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
class MotionSmoothnessResult:
    """MotionSmoothness of one clip.

    Attributes:
        temporal_score: MemoBench's `TemporalScore` (0-1, rounded to 4 dp).
        phases: The calls that ran, V first.
    """

    temporal_score: float
    phases: Tuple[PhaseScore, ...]


def warp_errors(images1: torch.Tensor, images2: torch.Tensor, flows: torch.Tensor) -> list:
    """MemoBench's warp error of each pair, on the flows' device.

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


def phase_score(frames, name: str, start: int, end: int, sample_step: int, flow_fn: FlowFn,
                warp_batch: int = DEFAULT_WARP_BATCH) -> PhaseScore:
    """One MotionSmoothness call over `iter_indices(start, end, sample_step)`.

    Args:
        frames: (N, H, W, 3) BGR uint8 frames (the 640 max-side resized clip).
        name: Label of the call ("V" or "R").
        start: First index (clipped to 0).
        end: Last index, inclusive (clipped to N - 1).
        sample_step: Positive stride.
        flow_fn: Flow function; called once with all consecutive sampled pairs.
        warp_batch: Pairs warped per grid_sample call (memory bound only).

    Returns:
        A PhaseScore; its score is 0.0 (and flow_fn is not called) when fewer
        than 3 frames are sampled, as in the official code.
    """
    indices = sampling.iter_indices(start, end, sample_step, len(frames))
    if len(indices) < MIN_SAMPLED_FRAMES:
        return PhaseScore(name, start, end, tuple(indices), (), 0.0)
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
    return PhaseScore(name, start, end, tuple(indices), tuple(errors), score)


def motion_smoothness(frames, h: int, r: int, sample_step: int, flow_fn: FlowFn,
                      warp_batch: int = DEFAULT_WARP_BATCH) -> MotionSmoothnessResult:
    """MemoBench's TemporalScore of one clip.

    Args:
        frames: (N, H, W, 3) BGR uint8 frames, already max-side resized.
        h: H keyframe index in this clip (end of V).
        r: R keyframe index in this clip (start of R).
        sample_step: Positive stride (MemoBench passes 4).
        flow_fn: Flow function (see the module docstring).
        warp_batch: Pairs warped per grid_sample call.

    Returns:
        A MotionSmoothnessResult. V = (0, h) runs only if h >= 2 and
        R = (r, N-1) only if N-1-r >= 2; temporal_score is
        round(mean of their scores, 4), 0.0 if neither ran.

    Raises:
        ValueError: If frames is empty or sample_step is not a positive int.
    """
    num_frames = len(frames)
    if num_frames == 0:
        raise ValueError("expected at least one frame")
    sampling.iter_indices(0, 0, sample_step, 1)  # Validates sample_step even if no call runs.
    phases = []
    if h >= MIN_PHASE_SPAN:
        phases.append(phase_score(frames, "V", 0, h, sample_step, flow_fn, warp_batch))
    if num_frames - 1 - r >= MIN_PHASE_SPAN:
        phases.append(phase_score(frames, "R", r, num_frames - 1, sample_step, flow_fn,
                                  warp_batch))
    if not phases:
        return MotionSmoothnessResult(0.0, ())
    mean = float(np.mean([phase.score for phase in phases]))
    return MotionSmoothnessResult(round(mean, 4), tuple(phases))
