"""Frame down-scaling with a longest-side rule (never upscaled)."""

import numbers

import cv2
import numpy as np


def check_max_side(max_side):
    """Checks a max_side argument.

    Args:
        max_side: Value to check.

    Raises:
        ValueError: Unless max_side is a positive int (bool is rejected).
    """
    if (
        isinstance(max_side, bool)
        or not isinstance(max_side, numbers.Integral)
        or max_side <= 0
    ):
        raise ValueError(f"max_side must be a positive int, got {max_side!r}")


def resize_max_side(frame, max_side):
    """Shrinks a frame so that its longer side is at most `max_side`.

    This is the official rule: frames are never upscaled; the
    scale is `max_side / max(h, w)`, the new size is rounded with Python's
    `round` (half to even) and the resize uses `cv2.INTER_AREA`.

    Args:
        frame: Image array of shape (H, W) or (H, W, C).
        max_side: Positive int, the largest allowed side length in pixels.

    Returns:
        The input array itself when no resize is needed, else a new array
        of shape (round(H * s), round(W * s), ...).

    Raises:
        ValueError: If max_side is not a positive int, frame is not an
            image array, or the rule would make a side zero pixels long.
    """
    check_max_side(max_side)
    if not isinstance(frame, np.ndarray) or frame.ndim not in (2, 3):
        raise ValueError("frame must be an (H, W) or (H, W, C) numpy array")
    size = max_side_size(frame.shape, max_side)
    if size is None:
        return frame
    return cv2.resize(frame, size, interpolation=cv2.INTER_AREA)


def max_side_size(shape, max_side):
    """The (width, height) resize_max_side would resize a frame of `shape` to.

    Args:
        shape: The frame's shape, (H, W) or (H, W, C).
        max_side: Positive int (not checked here).

    Returns:
        (new_w, new_h), or None when the frame is kept as it is.

    Raises:
        ValueError: If a side is zero, or the rule would make one zero.
    """
    h, w = shape[:2]
    if h == 0 or w == 0:
        raise ValueError(f"frame has an empty side: shape {tuple(shape)}")
    m = max(h, w)
    if m <= max_side:
        return None
    s = max_side / float(m)
    new_w = int(round(w * s))
    new_h = int(round(h * s))
    if new_w == 0 or new_h == 0:
        raise ValueError(
            f"resizing a {w}x{h} frame to max side {max_side} gives a "
            f"zero-sized {new_w}x{new_h} frame"
        )
    return new_w, new_h
