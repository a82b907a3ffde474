"""Detector-side image and box arithmetic of OpenMMLab's RTMDet test pipeline, weight-free.

Read in mmdet 3.2.0 / mmcv 2.1 (the versions a released pose metric installs) and written
here: `Resize(scale=(640, 640), keep_ratio=True)` is mmcv.imrescale (scale factor
min(long / max(h, w), short / min(h, w)), new size int(x * f + 0.5), cv2 INTER_LINEAR)
with the recorded scale factor (new_w / w, new_h / h); `Pad(size=(640, 640), pad_val=114)`
pads bottom and right and makes img_shape the padded size; the head clamps decoded boxes
to that img_shape, then divides them by the scale factor (`rescale=True`).

`greedy_nms` is mmpose.evaluation.functional.nms (the +1 pixel areas, keep overlap <= thr),
which a released object-integrity script applies after the score filter.
"""

from typing import List, Tuple

import cv2
import numpy as np

PAD_VALUE = 114


def rescale_size(height: int, width: int, scale: Tuple[int, int]) -> Tuple[int, int]:
    """(new_h, new_w) of mmcv.imrescale(keep_ratio) to `scale` (w, h)."""
    long_edge, short_edge = max(scale), min(scale)
    factor = min(long_edge / max(height, width), short_edge / min(height, width))
    return int(height * float(factor) + 0.5), int(width * float(factor) + 0.5)


def letterbox(image: np.ndarray, size: Tuple[int, int] = (640, 640)
              ) -> Tuple[np.ndarray, Tuple[float, float]]:
    """(padded (size[1], size[0], C) uint8, (w_scale, h_scale)) of an (H, W, C) image."""
    if image.ndim != 3:
        raise ValueError(f"expected an (H, W, C) image, found shape {image.shape}")
    height, width = image.shape[:2]
    new_h, new_w = rescale_size(height, width, size)
    if new_h > size[1] or new_w > size[0]:
        raise ValueError(f"resized {height}x{width} to {new_h}x{new_w}, larger than {size}")
    resized = cv2.resize(image, (new_w, new_h), interpolation=cv2.INTER_LINEAR)
    padded = np.full((size[1], size[0], image.shape[2]), PAD_VALUE, dtype=image.dtype)
    padded[:new_h, :new_w] = resized
    return padded, (new_w / width, new_h / height)


def boxes_to_image(boxes: np.ndarray, padded_hw: Tuple[int, int],
                   scale_factor: Tuple[float, float]) -> np.ndarray:
    """Decoded (N, 4) xyxy boxes of the padded input, clamped to it and rescaled to the
    original image (float32, as the head's tensors)."""
    boxes = np.array(boxes, np.float32).reshape(-1, 4)
    boxes[:, 0::2] = np.clip(boxes[:, 0::2], 0, padded_hw[1])
    boxes[:, 1::2] = np.clip(boxes[:, 1::2], 0, padded_hw[0])
    inverse = np.array([1 / scale_factor[0], 1 / scale_factor[1]] * 2, np.float32)
    return boxes * inverse


def greedy_nms(dets: np.ndarray, threshold: float) -> List[int]:
    """Indices kept from [[x1, y1, x2, y2, score]], highest score first; a box goes when
    its overlap with a kept one exceeds `threshold` (areas count +1 pixel per side)."""
    dets = np.asarray(dets)
    if len(dets) == 0:
        return []
    x1, y1, x2, y2, scores = (dets[:, i] for i in range(5))
    areas = (x2 - x1 + 1) * (y2 - y1 + 1)
    order = scores.argsort()[::-1]
    keep = []
    while len(order) > 0:
        i = order[0]
        keep.append(int(i))
        w = np.maximum(0.0, np.minimum(x2[i], x2[order[1:]])
                       - np.maximum(x1[i], x1[order[1:]]) + 1)
        h = np.maximum(0.0, np.minimum(y2[i], y2[order[1:]])
                       - np.maximum(y1[i], y1[order[1:]]) + 1)
        inter = w * h
        overlap = inter / (areas[i] + areas[order[1:]] - inter)
        order = order[np.where(overlap <= threshold)[0] + 1]
    return keep
