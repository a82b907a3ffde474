"""MemoBench ObjIdentityConsistency: DINOv2 patch tokens, R phase vs frame 0 (spec §4.3).

Official arithmetic (`object_centric_identity_consistency(gen, n_sample=9, start=r,
end=N-1)` in `automated/metrics/geometry.py`):

- start = max(0, min(r, N-1)), end = max(start, min(N-1, N-1)), n_range = end-start+1;
  sampled indices start + int(i * (n_range-1) / 8) for i = 0..8, or [start] when
  n_range <= 1.
- p0 = the L2-normalised patch tokens of generated frame 0 (the anchor); for each
  sampled frame k: s = clamp(sum(p0 * pk, -1), 0, 1) per patch, the top
  max(1, int(P * 0.4)) values (102 of 256), mean_k = their mean, min_k = their min.
- ObjIdentityMean = round(mean over k of mean_k, 4); ObjIdentityMin =
  round(min over k of min_k, 4) (Python round of numpy float64 values).

The official code runs one model call per frame; here the anchor and the sampled
frames (each distinct index once) go through one batched call.
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
    """ObjIdentityConsistency's raw values for one clip.

    Attributes:
        mean: ObjIdentityMean (rounded to 4 dp).
        min: ObjIdentityMin (rounded to 4 dp).
        indices: The sampled frame indices (R phase), in order.
        frame_means: mean_k of each sampled frame (unrounded).
        frame_mins: min_k of each sampled frame (unrounded).
    """

    mean: float
    min: float
    indices: Tuple[int, ...]
    frame_means: Tuple[float, ...]
    frame_mins: Tuple[float, ...]


def sample_indices(r: int, num_frames: int) -> List[int]:
    """The R-phase frames the official code samples: 9 evenly spaced in [r, N-1].

    Raises:
        ValueError: If num_frames is not positive.
    """
    if num_frames <= 0:
        raise ValueError(f"num_frames must be positive, got {num_frames}")
    last = num_frames - 1
    start = max(0, min(r, last))
    end = max(start, last)
    return sampling.evenly_spaced(start, end, N_SAMPLE)


def _as_tensor(tokens) -> torch.Tensor:
    return tokens if isinstance(tokens, torch.Tensor) else torch.as_tensor(np.asarray(tokens))


def per_frame_identity(anchor_tokens, frame_tokens) -> Tuple[List[float], List[float]]:
    """mean_k and min_k of the top-40% per-patch similarities of each frame.

    Args:
        anchor_tokens: (P, D) unit-length patch tokens of frame 0 (tensor or array).
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
    """(ObjIdentityMean, ObjIdentityMin) from the anchor's and the sampled frames' tokens.

    Args:
        anchor_tokens: (P, D) unit-length patch tokens of generated frame 0.
        frame_tokens: (K, P, D) unit-length patch tokens of the sampled R frames.

    Returns:
        (round(mean of mean_k, 4), round(min of min_k, 4)).
    """
    means, mins = per_frame_identity(anchor_tokens, frame_tokens)
    return round(float(np.mean(means)), 4), round(float(np.min(mins)), 4)


def identity_details(frames: Sequence[np.ndarray], r: int, model, device) -> IdentityResult:
    """ObjIdentityConsistency of a clip, with the sampled indices and per-frame values.

    Args:
        frames: The clip's BGR uint8 frames (already max-side resized), N >= 1.
        r: R keyframe index.
        model: From backbone.load_dinov2.
        device: Where the model is.
    """
    indices = sample_indices(r, len(frames))
    distinct = sorted({ANCHOR_INDEX, *indices})
    tokens = backbone.patch_tokens(model, [frames[i] for i in distinct], device)
    row = {index: position for position, index in enumerate(distinct)}
    frame_tokens = tokens[[row[i] for i in indices]]
    means, mins = per_frame_identity(tokens[row[ANCHOR_INDEX]], frame_tokens)
    return IdentityResult(round(float(np.mean(means)), 4), round(float(np.min(mins)), 4),
                          tuple(indices), tuple(means), tuple(mins))


def object_identity(frames: Sequence[np.ndarray], r: int, model, device) -> Tuple[float, float]:
    """(ObjIdentityMean, ObjIdentityMin) of a clip; see identity_details."""
    result = identity_details(frames, r, model, device)
    return result.mean, result.min
