"""Flow-magnitude statistics of a clip: motion magnitude and object-vs-background motion.

Transcribed from the arithmetic of two official flow metrics, details kept:

* Magnitude: per pixel `sqrt(u**2 + v**2)` in the flow's float32.
* Motion magnitude of a pair: the MEDIAN magnitude as `torch.Tensor.median()` defines
  it: for an even pixel count the LOWER of the two middle values (not their mean,
  as `np.median` would give).
* Motion accuracy of a pair (t, t+1): with the object mask of frame t (the union of
  the tracked objects' masks, dilated by a 21x21 square of ones, i.e. 10 px, with
  `cv2.dilate`), `max(|flow|[mask]) - max(|flow|[~mask])`, the subtraction in float32
  as two float32 torch maxima subtract. An empty object or background region makes the
  official `max()` raise; here a ValueError names it.
* Over a clip: the per-pair values summed in pair order, divided by the pair count.

In pixels of the flow (so they depend on the frame resolution).
"""

from typing import Callable, Sequence

import cv2
import numpy as np

DILATION_PIXELS = 10  # kernel 2 * 10 + 1 = 21

FlowFn = Callable[[np.ndarray, np.ndarray], np.ndarray]  # (frame_a, frame_b) -> (H, W, 2)


def magnitude(flow: np.ndarray) -> np.ndarray:
    """(H, W, 2) flow -> (H, W) per-pixel length, in the flow's dtype."""
    flow = np.asarray(flow)
    if flow.ndim != 3 or flow.shape[-1] != 2:
        raise ValueError(f"expected an (H, W, 2) flow, got shape {flow.shape}")
    return np.sqrt(flow[..., 0] ** 2 + flow[..., 1] ** 2)


def lower_median(values: np.ndarray) -> float:
    """torch's median of all elements: the ((n - 1) // 2)-th smallest."""
    flat = np.asarray(values).ravel()
    if flat.size == 0:
        raise ValueError("median of an empty array")
    k = (flat.size - 1) // 2
    return float(np.partition(flat, k)[k])


def median_magnitude(flow: np.ndarray) -> float:
    """The motion magnitude of one pair: the lower median of |flow|."""
    return lower_median(magnitude(flow))


def dilate_mask(mask: np.ndarray, pixels: int = DILATION_PIXELS) -> np.ndarray:
    """(H, W) bool mask grown by a (2*pixels+1)^2 square of ones (cv2.dilate, once)."""
    kernel = np.ones((2 * pixels + 1, 2 * pixels + 1), np.uint8)
    return cv2.dilate(np.asarray(mask).astype(np.uint8), kernel, iterations=1).astype(bool)


def object_mask(object_masks: Sequence[np.ndarray], pixels: int = DILATION_PIXELS) -> np.ndarray:
    """The union of one frame's per-object (H, W) masks, dilated by `pixels`."""
    if not len(object_masks):
        raise ValueError("no object masks: need at least one tracked object")
    union = np.zeros(np.asarray(object_masks[0]).shape, dtype=bool)
    for mask in object_masks:
        union |= np.asarray(mask).astype(bool)
    return dilate_mask(union, pixels)


def object_background_motion(flow: np.ndarray, mask: np.ndarray) -> float:
    """max(|flow|[mask]) - max(|flow|[~mask]) in float32; mask (H, W) bool, frame t's."""
    speed = magnitude(flow).astype(np.float32, copy=False)
    mask = np.asarray(mask)
    if mask.dtype != bool or mask.shape != speed.shape:
        raise ValueError(
            f"expected a bool mask of the flow's shape {speed.shape}, got {mask.dtype} "
            f"{mask.shape} (the official code fails here too: SEA-RAFT's x0.5 path returns "
            f"a flow one row/column short of an odd-sized frame)")
    inside, outside = speed[mask], speed[~mask]
    if inside.size == 0 or outside.size == 0:
        raise ValueError(f"the object mask covers {'none' if inside.size == 0 else 'all'} of "
                         f"the frame: max() of an empty region (the official code raises)")
    return float(np.float32(inside.max()) - np.float32(outside.max()))


def _pairs(frames):
    if len(frames) < 2:
        raise ValueError(f"need at least 2 frames for a flow pair, got {len(frames)}")
    return list(zip(frames[:-1], frames[1:]))


def clip_motion_magnitude(frames: Sequence[np.ndarray], flow: FlowFn) -> float:
    """Mean over consecutive pairs of `median_magnitude(flow(a, b))`."""
    scores = [median_magnitude(flow(a, b)) for a, b in _pairs(frames)]
    return sum(scores) / len(scores)


def clip_motion_accuracy(frames: Sequence[np.ndarray], masks: Sequence[np.ndarray],
                         flow: FlowFn) -> float:
    """Mean over pairs (t, t+1) of `object_background_motion(flow(f_t, f_t+1), masks[t])`.

    Args:
        frames: The clip's frames in order.
        masks: Per frame the (H, W) bool object mask (e.g. `object_mask` of the tracked
            objects); masks[t] goes with pair (t, t+1), the last one is unused.
        flow: `flow(frame_a, frame_b) -> (H, W, 2)`.
    """
    pairs = _pairs(frames)
    if len(masks) < len(pairs):
        raise ValueError(f"{len(masks)} masks for {len(pairs)} frame pairs")
    scores = [object_background_motion(flow(a, b), mask) for (a, b), mask in zip(pairs, masks)]
    return sum(scores) / len(scores)


def top_fraction_mean(values: np.ndarray, fraction: float) -> float:
    """The mean of the int(fraction * size) largest values, as
    `np.mean(abs(np.sort(-flat))[:cut])` computes it (descending order, float32 numpy mean).

    Raises:
        ValueError: If fraction is not in (0, 1] or fewer than one value would be kept.
    """
    if not 0 < fraction <= 1:
        raise ValueError(f"fraction must be in (0, 1], got {fraction}")
    flat = np.asarray(values).ravel()
    cut = int(flat.size * fraction)
    if cut < 1:
        raise ValueError(f"{flat.size} values keep int({flat.size} * {fraction}) = 0 of them")
    return float(np.mean(np.abs(np.sort(-flat))[:cut]))
