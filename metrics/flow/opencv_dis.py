"""OpenCV DIS optical flow: a weight-free, NOT official flow backend for the warp-error smoothness.

The official warp-error smoothness uses RAFT-large (metrics.flow.raft). This backend
needs no checkpoint and runs fast on a CPU, which makes it useful for
debugging and for machines without the RAFT weights, but its flows (and
hence its scores) differ from RAFT's: a score computed with it is never the
official number and is reported with `official: false`.

DIS (Kroeger et al., ECCV 2016) runs on grayscale frames
(`cv2.COLOR_BGR2GRAY`) with OpenCV's MEDIUM preset
(`cv2.DISOPTICAL_FLOW_PRESET_MEDIUM`: patch size 12, stride 8, with
variational refinement), a middle ground between ULTRAFAST/FAST and accuracy.

The module is not called dis.py: a binary's own folder comes first on
sys.path, and a dis.py there would shadow the standard library's dis module.
"""

from typing import Sequence, Tuple

import cv2
import numpy as np

BACKEND_NAME = "opencv-dis"
PRESET = cv2.DISOPTICAL_FLOW_PRESET_MEDIUM
PRESET_NAME = "MEDIUM"


def _gray(frame: np.ndarray) -> np.ndarray:
    frame = np.asarray(frame)
    if frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[-1] != 3:
        raise ValueError(
            f"expected a BGR uint8 frame of shape (H, W, 3), got dtype {frame.dtype} "
            f"and shape {frame.shape}")
    return cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)


def dis_flow(frame_a: np.ndarray, frame_b: np.ndarray) -> np.ndarray:
    """DIS flow from frame_a to frame_b.

    Args:
        frame_a: (H, W, 3) BGR uint8 frame.
        frame_b: Same shape, the next frame.

    Returns:
        (2, H, W) float32 array in RAFT's convention: channel 0 is x (u),
        channel 1 is y (v), and pixel (x, y) of frame_a moves to
        (x + u, y + v) in frame_b.

    Raises:
        ValueError: If a frame is not BGR uint8 or the sizes differ.
    """
    gray_a, gray_b = _gray(frame_a), _gray(frame_b)
    if gray_a.shape != gray_b.shape:
        raise ValueError(f"frame sizes differ: {gray_a.shape} and {gray_b.shape}")
    estimator = cv2.DISOpticalFlow_create(PRESET)
    flow = estimator.calc(gray_a, gray_b, None)  # (H, W, 2): [..., 0] = x, [..., 1] = y.
    return np.ascontiguousarray(flow.transpose(2, 0, 1), dtype=np.float32)


class DisFlow:
    """A warp-error smoothness flow function backed by OpenCV DIS (NOT official).

    Calling it with a list of (frame_a, frame_b) BGR uint8 pairs returns a
    (P, 2, H, W) float32 numpy array, one `dis_flow` per pair.

    Attributes:
        name: "opencv-dis".
        official: False: the official backend is RAFT-large.
    """

    name = BACKEND_NAME
    official = False

    def __call__(self, pairs: Sequence[Tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
        if not pairs:
            raise ValueError("expected at least one frame pair")
        return np.stack([dis_flow(a, b) for a, b in pairs])
