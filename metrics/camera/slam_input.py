"""Frames for a dense SLAM network: resize to a fixed pixel area, crop to multiples of 8.

A network on a 1/8-resolution grid (DROID-SLAM) wants H and W divisible by 8 at about a
fixed area. For a frame of h0 x w0 pixels and a target area A (512 * 512 by default):

    f  = sqrt(A / (h0 * w0))
    h1 = int(h0 * f),  w1 = int(w0 * f)            (truncation, computed in float64)
    frame -> cv2.resize(frame, (w1, h1))           (OpenCV's default INTER_LINEAR)
          -> frame[:h1 - h1 % 8, :w1 - w1 % 8]     (crop from the top-left corner)

The pinhole intrinsics (fx, fy, cx, cy) are scaled by the resize factors, x ones by
w1 / w0 and y ones by h1 / h0, in float32 (a torch default-dtype tensor multiplied in
place, as DROID-SLAM's demo scripts do); the crop leaves them unchanged. The caller
chooses the intrinsics; a benchmark that fixes them whatever the frame size says so.
"""

from typing import Sequence, Tuple

import numpy as np

DEFAULT_AREA = 512 * 512
MULTIPLE = 8


def resized_shape(height: int, width: int, area: int = DEFAULT_AREA) -> Tuple[int, int]:
    """(h1, w1) before the crop: the frame scaled to about `area` pixels, truncated."""
    if height <= 0 or width <= 0:
        raise ValueError(f"frame size must be positive, got {height}x{width}")
    factor = np.sqrt(area / (height * width))  # np.float64, as numpy computes it
    return int(height * factor), int(width * factor)


def cropped_shape(height: int, width: int, area: int = DEFAULT_AREA) -> Tuple[int, int]:
    """(H, W) of the frame the network sees: the resized size cut down to multiples of 8."""
    h1, w1 = resized_shape(height, width, area)
    return h1 - h1 % MULTIPLE, w1 - w1 % MULTIPLE


def prepare_frame(frame: np.ndarray, area: int = DEFAULT_AREA) -> np.ndarray:
    """The (H, W, C) uint8 frame resized (cv2 INTER_LINEAR) and cropped; channels kept."""
    import cv2  # pylint: disable=import-outside-toplevel
    array = np.asarray(frame)
    if array.ndim != 3 or array.dtype != np.uint8:
        raise ValueError(f"expected an (H, W, C) uint8 frame, got {array.dtype} {array.shape}")
    h0, w0 = array.shape[:2]
    h1, w1 = resized_shape(h0, w0, area)
    resized = cv2.resize(array, (w1, h1))
    return resized[:h1 - h1 % MULTIPLE, :w1 - w1 % MULTIPLE]


def scaled_intrinsics(calib: Sequence[float], height: int, width: int,
                      area: int = DEFAULT_AREA) -> np.ndarray:
    """(fx, fy, cx, cy) of the resized frame as float32: x terms times w1 / w0, y terms
    times h1 / h0, the factor and the product in float32 (torch's in-place multiply)."""
    if len(calib) != 4:
        raise ValueError(f"calib must be (fx, fy, cx, cy), got {list(calib)}")
    h1, w1 = resized_shape(height, width, area)
    out = np.asarray(calib, dtype=np.float32).copy()
    out[0::2] *= np.float32(w1 / width)  # float32 x float32, as torch's in-place multiply
    out[1::2] *= np.float32(h1 / height)
    return out
