"""Top-down pose pipeline arithmetic of mmpose 1.x, weight-free (numpy / cv2).

Read in mmpose 1.3 (open-mmlab/mmpose) and written here:
  - GetBBoxCenterScale(padding=1.25): center = (x1y1 + x2y2) / 2, scale = (x2y2 - x1y1) * 1.25;
  - TopdownAffine(input_size=(w, h), use_udp=False): the scale is widened or heightened to
    the input aspect w / h, the 2x3 matrix is get_warp_matrix (three point pairs: the
    center, the center shifted by half the width left, and a third point at 90 degrees;
    rotation 0, shift 0) through cv2.getAffineTransform, and the crop is
    cv2.warpAffine(INTER_LINEAR, constant 0 border);
  - SimCC decoding (SimCCLabel, split ratio 2.0, no DARK, no visibility): per keypoint the
    argmax of each 1-D vector, score = the smaller of the two maxima, location -1 where the
    score <= 0, then location / split ratio;
  - back to the image: keypoint / input_size * scale + center - scale / 2;
  - flip test (RTMCCHead): the horizontally flipped crop's vectors are re-indexed by the
    left/right flip indices, x reversed, and averaged with the plain crop's (logits).
The dtypes follow the official arrays (float32 boxes, centers and scales).
"""

from typing import Sequence, Tuple

import cv2
import numpy as np

PADDING = 1.25
# COCO-17 left/right swap (mmpose configs/_base_/datasets/coco.py `swap`).
COCO17_FLIP_INDICES = (0, 2, 1, 4, 3, 6, 5, 8, 7, 10, 9, 12, 11, 14, 13, 16, 15)


def bbox_center_scale(bbox_xyxy: np.ndarray, padding: float = PADDING
                      ) -> Tuple[np.ndarray, np.ndarray]:
    """(center (2,), scale (2,)) of one xyxy box, in the box's dtype."""
    bbox = np.asarray(bbox_xyxy)
    if bbox.shape != (4,):
        raise ValueError(f"expected one xyxy box of shape (4,), found {bbox.shape}")
    return (bbox[2:] + bbox[:2]) * 0.5, (bbox[2:] - bbox[:2]) * padding


def fix_aspect_ratio(scale: np.ndarray, aspect_ratio: float) -> np.ndarray:
    """Grow the short side of (w, h) so that w / h == aspect_ratio."""
    w, h = scale[0], scale[1]
    fixed = np.array([w, w / aspect_ratio]) if w > h * aspect_ratio else \
        np.array([h * aspect_ratio, h])
    return fixed.astype(np.result_type(scale, np.float32))


def _third_point(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    direction = a - b
    return b + np.r_[-direction[1], direction[0]]


def warp_matrix(center: np.ndarray, scale: np.ndarray, output_size: Tuple[int, int]
                ) -> np.ndarray:
    """The (2, 3) float64 matrix mapping the box (center, scale) onto output (w, h)."""
    src_w = scale[0]
    dst_w, dst_h = output_size
    src = np.zeros((3, 2), dtype=np.float32)
    src[0] = center + scale * np.zeros(2)
    src[1] = center + np.array([src_w * -0.5, 0.0]) + scale * np.zeros(2)
    dst = np.zeros((3, 2), dtype=np.float32)
    dst[0] = [dst_w * 0.5, dst_h * 0.5]
    dst[1] = np.array([dst_w * 0.5, dst_h * 0.5]) + np.array([dst_w * -0.5, 0.0])
    src[2] = _third_point(src[0], src[1])
    dst[2] = _third_point(dst[0], dst[1])
    return cv2.getAffineTransform(np.float32(src), np.float32(dst))


def crop(image: np.ndarray, bbox_xyxy: np.ndarray, input_size: Tuple[int, int]
         ) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(crop (h, w, C) in the image's dtype, center, aspect-fixed scale) for one box."""
    w, h = input_size
    center, scale = bbox_center_scale(np.asarray(bbox_xyxy, np.float32))
    scale = fix_aspect_ratio(scale, w / h)
    matrix = warp_matrix(center, scale, (w, h))
    return (cv2.warpAffine(image, matrix, (int(w), int(h)), flags=cv2.INTER_LINEAR),
            center, scale)


def simcc_maximum(simcc_x: np.ndarray, simcc_y: np.ndarray
                  ) -> Tuple[np.ndarray, np.ndarray]:
    """(locations (N, K, 2) float32 in SimCC bins, scores (N, K)) of (N, K, Wx), (N, K, Wy)."""
    simcc_x, simcc_y = np.asarray(simcc_x), np.asarray(simcc_y)
    if simcc_x.ndim != 3 or simcc_y.ndim != 3 or simcc_x.shape[:2] != simcc_y.shape[:2]:
        raise ValueError(f"expected SimCC vectors (N, K, Wx) and (N, K, Wy), found "
                         f"{simcc_x.shape} and {simcc_y.shape}")
    n, k = simcc_x.shape[:2]
    x, y = simcc_x.reshape(n * k, -1), simcc_y.reshape(n * k, -1)
    locations = np.stack((np.argmax(x, axis=1), np.argmax(y, axis=1)), -1).astype(np.float32)
    scores = np.minimum(np.amax(x, axis=1), np.amax(y, axis=1))
    locations[scores <= 0.0] = -1
    return locations.reshape(n, k, 2), scores.reshape(n, k)


def decode_simcc(simcc_x: np.ndarray, simcc_y: np.ndarray, split_ratio: float = 2.0
                 ) -> Tuple[np.ndarray, np.ndarray]:
    """(keypoints (N, K, 2) in input pixels, scores (N, K))."""
    locations, scores = simcc_maximum(simcc_x, simcc_y)
    return locations / split_ratio, scores


def flip_average(simcc_x: np.ndarray, simcc_y: np.ndarray, flipped_x: np.ndarray,
                 flipped_y: np.ndarray, flip_indices: Sequence[int] = COCO17_FLIP_INDICES
                 ) -> Tuple[np.ndarray, np.ndarray]:
    """The flip-test average of the plain and the horizontally flipped crop's vectors."""
    index = list(flip_indices)
    return ((simcc_x + flipped_x[:, index, ::-1]) * 0.5,
            (simcc_y + flipped_y[:, index]) * 0.5)


def to_image(keypoints: np.ndarray, center: np.ndarray, scale: np.ndarray,
             input_size: Tuple[int, int]) -> np.ndarray:
    """Input-crop keypoints (K, 2) back to image pixels."""
    return keypoints / np.asarray(input_size) * scale + center - 0.5 * scale
