"""DINOv2 patch-token identity of sampled frames against an anchor frame.

Arithmetic (the object-centric identity consistency of a released video benchmark's
`geometry.py`, quirks kept):

- start = max(0, min(start, N-1)), end = max(start, min(end, N-1)), n_range = end-start+1;
  sampled indices start + int(i * (n_range-1) / (n_sample-1)) for i = 0..n_sample-1, or
  [start] when n_range <= 1.
- p0 = the L2-normalised patch tokens of the anchor frame (frame 0 by default); for each
  sampled frame k: s = clamp(sum(p0 * pk, -1), 0, 1) per patch, the top
  max(1, int(P * 0.4)) values (102 of 256), mean_k = their mean, min_k = their min.
- mean = mean over k of mean_k; min = min over k of min_k (Python floats, unrounded:
  a benchmark rounds as its own code does).

The official code runs one model call per frame; here the anchor and the sampled
frames (each distinct index once, `model_frames`) go through one batched call, or come
as tokens computed elsewhere (`identity_from_frame_tokens`: shared calls of several clips).
"""

import dataclasses
from typing import List, Sequence, Tuple

import numpy as np
import torch

from metrics.dinov2 import backbone
from metrics.video import sampling

N_SAMPLE = 9
TOP_K_FRAC = 0.4
ANCHOR_INDEX = 0


@dataclasses.dataclass(frozen=True)
class IdentityResult:
    """Patch identity of the sampled frames of one clip against its anchor frame.

    Attributes:
        mean: Mean over the sampled frames of mean_k.
        min: Min over the sampled frames of min_k.
        indices: The sampled frame indices, in order.
        frame_means: mean_k of each sampled frame (unrounded).
        frame_mins: min_k of each sampled frame (unrounded).
    """

    mean: float
    min: float
    indices: Tuple[int, ...]
    frame_means: Tuple[float, ...]
    frame_mins: Tuple[float, ...]


def span_indices(start: int, end: int, num_frames: int, count: int = N_SAMPLE) -> List[int]:
    """`count` frames evenly spaced in [start, end], both clamped to the clip.

    Raises:
        ValueError: If num_frames is not positive.
    """
    if num_frames <= 0:
        raise ValueError(f"num_frames must be positive, got {num_frames}")
    last = num_frames - 1
    start = max(0, min(start, last))
    end = max(start, min(end, last))
    return sampling.evenly_spaced(start, end, count)


def _as_tensor(tokens) -> torch.Tensor:
    return tokens if isinstance(tokens, torch.Tensor) else torch.as_tensor(np.asarray(tokens))


def per_frame_identity(anchor_tokens, frame_tokens) -> Tuple[List[float], List[float]]:
    """mean_k and min_k of the top-40% per-patch similarities of each frame.

    Args:
        anchor_tokens: (P, D) unit-length patch tokens of the anchor (tensor or array).
        frame_tokens: (K, P, D) unit-length patch tokens of the sampled frames.

    Returns:
        ([mean_k], [min_k]) as Python floats, one per frame.

    Raises:
        ValueError: On shape mismatch or no frames.
    """
    anchor = _as_tensor(anchor_tokens)
    frames = _as_tensor(frame_tokens)
    if anchor.ndim != 2 or frames.ndim != 3 or frames.shape[1:] != anchor.shape:
        raise ValueError(f"expected anchor (P, D) and frames (K, P, D), got "
                         f"{tuple(anchor.shape)} and {tuple(frames.shape)}")
    if frames.shape[0] == 0:
        raise ValueError("expected at least one sampled frame")
    frames = frames.to(device=anchor.device, dtype=anchor.dtype)
    top_k = max(1, int(anchor.shape[0] * TOP_K_FRAC))
    means, mins = [], []
    for tokens in frames:
        sims = (anchor * tokens).sum(dim=-1).clamp(0.0, 1.0)
        top, _ = sims.topk(top_k)
        means.append(float(top.mean().item()))
        mins.append(float(top.min().item()))
    return means, mins


def identity_from_tokens(anchor_tokens, frame_tokens) -> Tuple[float, float]:
    """(mean, min) identity from the anchor's and the sampled frames' tokens.

    Args:
        anchor_tokens: (P, D) unit-length patch tokens of the anchor frame.
        frame_tokens: (K, P, D) unit-length patch tokens of the sampled frames.

    Returns:
        (mean of mean_k, min of min_k).
    """
    means, mins = per_frame_identity(anchor_tokens, frame_tokens)
    return float(np.mean(means)), float(np.min(mins))


def model_frames(start: int, end: int, num_frames: int,
                 anchor_index: int = ANCHOR_INDEX) -> Tuple[List[int], List[int]]:
    """(the sampled indices, the distinct frames the model sees: the anchor and the
    sampled frames, each once, sorted).

    Raises:
        ValueError: If num_frames is not positive.
    """
    indices = span_indices(start, end, num_frames)
    return indices, sorted({anchor_index, *indices})


def identity_from_frame_tokens(indices: Sequence[int], distinct: Sequence[int], tokens,
                               anchor_index: int = ANCHOR_INDEX) -> IdentityResult:
    """The identity from the patch tokens of the distinct frames (model_frames).

    Args:
        indices: The sampled indices, in order.
        distinct: The frames `tokens` holds, one row each, in this order.
        tokens: (len(distinct), P, D) unit-length patch tokens (tensor or array).
        anchor_index: The frame every sampled frame is compared with (in `distinct`).
    """
    tokens = _as_tensor(tokens)
    row = {index: position for position, index in enumerate(distinct)}
    frame_tokens = tokens[[row[i] for i in indices]]
    means, mins = per_frame_identity(tokens[row[anchor_index]], frame_tokens)
    return IdentityResult(float(np.mean(means)), float(np.min(mins)), tuple(indices),
                          tuple(means), tuple(mins))


def identity_details(frames: Sequence[np.ndarray], start: int, end: int, model, device,
                     anchor_index: int = ANCHOR_INDEX) -> IdentityResult:
    """Patch identity against the anchor of 9 frames evenly spaced in [start, end].

    Args:
        frames: The clip's BGR uint8 frames, N >= 1.
        start: First index of the sampled span (clamped to the clip).
        end: Last index of the sampled span, inclusive (clamped).
        model: From backbone.load_dinov2.
        device: Where the model is.
        anchor_index: The frame every sampled frame is compared with.
    """
    indices, distinct = model_frames(start, end, len(frames), anchor_index)
    tokens = backbone.patch_tokens(model, [frames[i] for i in distinct], device)
    return identity_from_frame_tokens(indices, distinct, tokens, anchor_index)
