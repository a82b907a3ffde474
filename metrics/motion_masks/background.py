"""Motion masks by running-average background subtraction.

Each frame is turned grey and blurred; a float64 running average of those
blurred frames is the background, and a pixel is "moving" where the frame
differs from the (rounded) background by more than a threshold. Two
morphological passes (opening, then closing) remove specks and fill holes.

The arithmetic is the one of a well-known OpenCV recipe, kept exactly, order
included, because downstream scores depend on the very bits of these masks:
  * the first frame only initialises the average; its mask is all zeros;
  * for every later frame the average is updated *before* the difference is
    taken, so the frame already weighs `alpha` in its own background;
  * the background is rounded and saturated to uint8 (cv2.convertScaleAbs)
    before the uint8 absolute difference.

Every parameter is explicit; callers pass their benchmark's values.
"""

import cv2
import numpy as np


def _blurred_grey(frame, blur_size):
    """Grey (cv2 BGR2GRAY) then GaussianBlur(blur_size x blur_size, sigma 0)."""
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    return cv2.GaussianBlur(grey, (blur_size, blur_size), 0)


def _check_frame(frame, index):
    if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8:
        raise ValueError(f"frame {index} must be a uint8 numpy array")
    if frame.ndim != 3 or frame.shape[2] != 3:
        raise ValueError(
            f"frame {index} must have shape (H, W, 3) (BGR), got {frame.shape}"
        )


def iter_motion_masks(frames, *, alpha, threshold, blur_size, morph_size):
    """Yields one uint8 mask (0 or 255, shape H x W) per BGR frame.

    Constant memory: frames are consumed one at a time, so `frames` may be a
    generator over a long video.

    Args:
        frames: Iterable of BGR uint8 frames of shape (H, W, 3), all one size.
        alpha: Weight of the new frame in the running average
            (cv2.accumulateWeighted).
        threshold: A pixel is moving where |grey - background| > threshold.
        blur_size: Side of the square Gaussian blur kernel (odd), sigma 0.
        morph_size: Side of the square all-ones kernel of the opening and
            the closing.

    Yields:
        uint8 arrays of shape (H, W): 255 where moving, else 0. The first is
        all zeros.

    Raises:
        ValueError: If a frame is not an (H, W, 3) uint8 array.
    """
    kernel = np.ones((morph_size, morph_size), np.uint8)
    average = None
    for index, frame in enumerate(frames):
        _check_frame(frame, index)
        grey = _blurred_grey(frame, blur_size)
        if average is None:
            average = grey.astype(np.float64)
            yield np.zeros_like(grey)
            continue
        cv2.accumulateWeighted(grey, average, alpha)  # before the difference
        background = cv2.convertScaleAbs(average)
        diff = cv2.absdiff(grey, background)
        _, mask = cv2.threshold(diff, threshold, 255, cv2.THRESH_BINARY)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
        yield cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel)


def motion_masks(frames, *, alpha, threshold, blur_size, morph_size):
    """All masks of `frames` as one uint8 array of shape (T, H, W).

    Same arguments as iter_motion_masks; convenient for short clips.

    Raises:
        ValueError: If `frames` is empty or holds a frame that is not an
            (H, W, 3) uint8 array.
    """
    masks = list(
        iter_motion_masks(
            frames,
            alpha=alpha,
            threshold=threshold,
            blur_size=blur_size,
            morph_size=morph_size,
        )
    )
    if not masks:
        raise ValueError("no frames")
    return np.stack(masks)
