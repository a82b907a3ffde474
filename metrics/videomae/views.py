"""Test-time views of a video for a VideoMAE v2 classifier, as its fine-tuning code's
dense test sampling makes them (VideoClsDataset in test mode, read and described here):

  frames      every `rate`-th frame (0, rate, 2*rate, ...) of the whole video; fewer than
              `clip_len` indices are padded by repeating the last (49 frames at rate 4: 13
              indices, then 48 three more times);
  resize      each frame's short side to `short_side` with cv2 bilinear, the long side
              int(short_side * long / short) (truncated); a frame whose short side already
              is `short_side` is kept as is;
  temporal    view k of `segments` starts at int(k * max((L - clip_len) / (segments - 1), 0))
              of the L sampled frames and takes `clip_len` consecutive ones;
  spatial     crop c of `crops` is a short_side x short_side window along the long side at
              int(c * (long - short_side) / (crops - 1)) (rows when H >= W, else columns);
  tensor      float32(x) / 255, then (x - mean) / std per channel in float32 (ImageNet),
              laid out (C, T, H, W).

Views are ordered temporal-major: (k, c) = (0, 0), (0, 1), (0, 2), (1, 0), ...
"""

from typing import List, Tuple

import cv2
import numpy as np

CLIP_LEN, RATE, SHORT_SIDE, SEGMENTS, CROPS = 16, 4, 224, 10, 3
MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def sampled_indices(num_frames: int, clip_len: int = CLIP_LEN, rate: int = RATE) -> List[int]:
    if num_frames < 1:
        raise ValueError(f"expected a video with frames, found {num_frames}")
    indices = list(range(0, num_frames, rate))
    return indices + [indices[-1]] * max(clip_len - len(indices), 0)


def resized_size(height: int, width: int, short_side: int = SHORT_SIDE) -> Tuple[int, int]:
    if min(height, width) == short_side:
        return height, width
    if width < height:
        return int(short_side * height / width), short_side
    return short_side, int(short_side * width / height)


def temporal_starts(num_sampled: int, clip_len: int = CLIP_LEN,
                    segments: int = SEGMENTS) -> List[int]:
    step = max(1.0 * (num_sampled - clip_len) / (segments - 1), 0)
    return [int(k * step) for k in range(segments)]


def spatial_starts(height: int, width: int, short_side: int = SHORT_SIDE,
                   crops: int = CROPS) -> List[int]:
    step = 1.0 * (max(height, width) - short_side) / (crops - 1)
    return [int(c * step) for c in range(crops)]


def views(frames_rgb: np.ndarray, clip_len: int = CLIP_LEN, rate: int = RATE,
          short_side: int = SHORT_SIDE, segments: int = SEGMENTS, crops: int = CROPS
          ) -> np.ndarray:
    """(segments * crops, 3, clip_len, short_side, short_side) float32 views of (T, H, W, 3)
    uint8 RGB frames."""
    frames_rgb = np.asarray(frames_rgb)
    if frames_rgb.ndim != 4 or frames_rgb.shape[3] != 3 or frames_rgb.dtype != np.uint8:
        raise ValueError(f"expected (T, H, W, 3) uint8 RGB frames, found {frames_rgb.shape} "
                         f"{frames_rgb.dtype}")
    picked = frames_rgb[sampled_indices(len(frames_rgb), clip_len, rate)]
    height, width = resized_size(*picked.shape[1:3], short_side)
    if (height, width) != picked.shape[1:3]:
        picked = np.stack([cv2.resize(f, (width, height), interpolation=cv2.INTER_LINEAR)
                           for f in picked])
    mean = np.asarray(MEAN, np.float32)[:, None, None, None]
    std = np.asarray(STD, np.float32)[:, None, None, None]
    out = []
    for start in temporal_starts(len(picked), clip_len, segments):
        clip = picked[start:start + clip_len]
        for offset in spatial_starts(height, width, short_side, crops):
            if height >= width:
                crop = clip[:, offset:offset + short_side]
            else:
                crop = clip[:, :, offset:offset + short_side]
            tensor = crop.transpose(3, 0, 1, 2).astype(np.float32) / np.float32(255)
            out.append((tensor - mean) / std)
    return np.stack(out)


def mean_softmax(logits: np.ndarray) -> np.ndarray:
    """The mean over views of each view's softmax, in float64 from the logits as the model
    produced them (the fine-tuning code's merge re-reads the logits and softmaxes them)."""
    logits = np.asarray(logits, np.float64)
    if logits.ndim != 2 or len(logits) == 0:
        raise ValueError(f"expected (views, classes) logits, found {logits.shape}")
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    return np.mean(shifted / shifted.sum(axis=1, keepdims=True), axis=0)


def expected_rating(probabilities: np.ndarray, weights) -> float:
    """sum_k p_k w_k of a class-probability vector (e.g. views' mean softmax), summed as
    np.sum(p * w)."""
    probabilities = np.asarray(probabilities, np.float64)
    weights = np.asarray(weights, np.float64)
    if probabilities.shape != weights.shape:
        raise ValueError(f"{probabilities.shape[-1] if probabilities.ndim else 0} class "
                         f"probabilities for {len(weights)} weights")
    return float(np.sum(probabilities * weights))
