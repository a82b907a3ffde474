"""PAS's detection boxes on their way to SAM (spec §4.1 steps 2 and 5): the official
size bug, faithful and corrected, as pure arithmetic.

GroundingDINO sees frame 0 resized with RandomResize([800], max_size=1333): the short
side to 800 unless the long side would pass 1333, then the long side to about 1333. Its
boxes (normalised cx, cy, w, h) are scaled to frame-0 pixels (x0, y0, x1, y1), then SAM's
ResizeLongestSide(1024).apply_boxes_torch(boxes, original_size) maps them to SAM's input
frame: with original (oh, ow), scale = 1024 / max(oh, ow), new = (int(oh*scale + 0.5),
int(ow*scale + 0.5)), x *= new_w / ow and y *= new_h / oh.

The official perceptible_amplitude_score.py passes `image.shape[:2]` of the *GroundingDINO
input tensor* (3, H', W'), i.e. original = (3, H'): x is scaled by 1024 / H' and y by
round(3 * 1024 / H') / 3, instead of 1024 / max(H, W) for both. SAM_BOXES_FAITHFUL keeps
that bug (the official numbers); SAM_BOXES_CORRECTED passes (H, W) of frame 0.
"""

from typing import Tuple

import numpy as np

SAM_BOXES_FAITHFUL, SAM_BOXES_CORRECTED = "faithful", "corrected"
SAM_BOXES_MODES = (SAM_BOXES_FAITHFUL, SAM_BOXES_CORRECTED)
SAM_LONG_SIDE = 1024
DINO_SHORT, DINO_MAX = 800, 1333


def groundingdino_input_size(height: int, width: int) -> Tuple[int, int]:
    """(H', W') of frame 0 after RandomResize([800], max_size=1333)."""
    size = DINO_SHORT
    short, long = min(height, width), max(height, width)
    if long / short * size > DINO_MAX:
        size = int(round(DINO_MAX * short / long))
    if short == size:  # already that size: kept as is
        return height, width
    if width < height:
        return int(size * height / width), size
    return size, int(size * width / height)


def _sam_scale(original: Tuple[int, int]) -> Tuple[float, float]:
    """(x, y) factors of ResizeLongestSide(1024).apply_boxes for `original` (oh, ow)."""
    oh, ow = original
    scale = SAM_LONG_SIDE / max(oh, ow)
    new_h, new_w = int(oh * scale + 0.5), int(ow * scale + 0.5)
    return new_w / ow, new_h / oh


def sam_original_size(height: int, width: int, mode: str) -> Tuple[int, int]:
    """The original_size handed to apply_boxes_torch."""
    if mode == SAM_BOXES_FAITHFUL:
        return 3, groundingdino_input_size(height, width)[0]
    if mode == SAM_BOXES_CORRECTED:
        return height, width
    raise ValueError(f"SAM box mode must be one of {SAM_BOXES_MODES}, found {mode!r}")


def sam_box_scale(height: int, width: int, mode: str = SAM_BOXES_FAITHFUL
                  ) -> Tuple[float, float]:
    """(x, y) factors from frame-0 pixels to SAM's 1024 input frame."""
    return _sam_scale(sam_original_size(height, width, mode))


def boxes_for_sam(boxes_xyxy: np.ndarray, height: int, width: int,
                  mode: str = SAM_BOXES_FAITHFUL) -> np.ndarray:
    """(N, 4) frame-0 pixel boxes as SAM receives them."""
    boxes = np.asarray(boxes_xyxy, dtype=np.float64)
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise ValueError(f"expected (N, 4) x0 y0 x1 y1 boxes, found {boxes.shape}")
    sx, sy = sam_box_scale(height, width, mode)
    return boxes * np.array([sx, sy, sx, sy])


def cxcywh_to_pixels(boxes: np.ndarray, height: int, width: int) -> np.ndarray:
    """GroundingDINO's normalised (cx, cy, w, h) to frame-0 pixel (x0, y0, x1, y1)."""
    boxes = np.asarray(boxes, dtype=np.float64) * np.array([width, height, width, height])
    centre, size = boxes[:, :2], boxes[:, 2:]
    return np.concatenate([centre - size / 2, centre + size / 2], axis=1)
