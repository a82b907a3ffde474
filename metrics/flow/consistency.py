"""Forward-backward flow consistency: the mean end-point error of a round trip.

Transcribed from the arithmetic of `compute_epe` in an official flow-AEPE metric
(photometric consistency), with its details kept:

* Both (H, W, 2) flows are cropped to the central (H - crop) x (W - crop) window,
  starting at (crop // 2, crop // 2) (crop 30: 15 px off each border). Coordinates
  are then relative to the crop.
* For each pixel p = (x, y) of the crop: q = p + f12(p); q is rounded half to even
  (`np.round`) and clipped to the crop, giving the integer pixel r; the round trip
  lands at q + f21(r) (q unrounded) and the error is |q + f21(r) - p|, i.e.
  |f12(p) + f21(r)|.
* The score is the plain mean over the crop's pixels (float64, as numpy computes an
  int64 grid plus float32 flows). The official function also returns a mask of errors
  > 5 px, which no score uses; it is not reproduced.

Over a clip: the mean over consecutive pairs (a, b) of the error of flow(a, b) and
flow(b, a), summed in pair order and divided by the pair count. In pixels of the flow
(so it depends on the frame resolution).
"""

from typing import Callable, Sequence

import numpy as np

DEFAULT_CROP = 30

FlowFn = Callable[[np.ndarray, np.ndarray], np.ndarray]  # (frame_a, frame_b) -> (H, W, 2)


def _check_flow(flow: np.ndarray, name: str) -> np.ndarray:
    flow = np.asarray(flow)
    if flow.ndim != 3 or flow.shape[-1] != 2:
        raise ValueError(f"{name}: expected an (H, W, 2) flow, got shape {flow.shape}")
    return flow


def forward_backward_epe(flow_12: np.ndarray, flow_21: np.ndarray,
                         crop: int = DEFAULT_CROP) -> float:
    """The mean round-trip end-point error of a forward and a backward flow.

    Args:
        flow_12: (H, W, 2) flow from image 1 to image 2 (x then y), float.
        flow_21: (H, W, 2) flow from image 2 to image 1.
        crop: Pixels removed in total per dimension (half on each side).

    Returns:
        The mean error in pixels (a Python float).

    Raises:
        ValueError: Flows of other shapes, or a crop that leaves no pixel.
    """
    flow_12, flow_21 = _check_flow(flow_12, "flow_12"), _check_flow(flow_21, "flow_21")
    if flow_12.shape != flow_21.shape:
        raise ValueError(f"forward and backward flows differ in shape: {flow_12.shape} vs "
                         f"{flow_21.shape}")
    height, width, _ = flow_12.shape
    crop_h, crop_w = height - crop, width - crop
    if crop_h <= 0 or crop_w <= 0:
        raise ValueError(f"a {height}x{width} flow has no pixel left after a crop of {crop}")
    top, left = (height - crop_h) // 2, (width - crop_w) // 2
    fw = flow_12[top:top + crop_h, left:left + crop_w]
    bw = flow_21[top:top + crop_h, left:left + crop_w]
    ys, xs = np.meshgrid(np.arange(crop_h), np.arange(crop_w), indexing="ij")
    qx, qy = xs + fw[..., 0], ys + fw[..., 1]
    rx = np.clip(np.round(qx).astype(int), 0, crop_w - 1)
    ry = np.clip(np.round(qy).astype(int), 0, crop_h - 1)
    back = bw[ry, rx]
    error = np.sqrt((qx + back[..., 0] - xs) ** 2 + (qy + back[..., 1] - ys) ** 2)
    return float(np.mean(error))


def clip_forward_backward_epe(frames: Sequence[np.ndarray], flow: FlowFn,
                              crop: int = DEFAULT_CROP) -> float:
    """Mean over consecutive pairs of `forward_backward_epe(flow(a, b), flow(b, a))`.

    Args:
        frames: The clip's frames in order, in whatever form `flow` takes.
        flow: `flow(frame_a, frame_b) -> (H, W, 2)`.
        crop: As in forward_backward_epe.

    Raises:
        ValueError: Fewer than two frames (the official code divides by zero).
    """
    if len(frames) < 2:
        raise ValueError(f"need at least 2 frames for a flow pair, got {len(frames)}")
    scores = [forward_backward_epe(flow(a, b), flow(b, a), crop)
              for a, b in zip(frames[:-1], frames[1:])]
    return sum(scores) / len(scores)
