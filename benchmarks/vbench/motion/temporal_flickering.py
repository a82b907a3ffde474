"""VBench `temporal_flickering` of one video (spec §5.2, §9 quirk 7).

Upstream (vbench/temporal_flickering.py @45e79ec): every frame cv2 decodes, BGR as read
(`get_frames`, :16-27); for each consecutive pair the mean of `cv2.absdiff` of the two
frames as float32 over H x W x 3 (`calculate_mae`, :37-42; a float32 numpy mean); the
pair values gathered in a float32 array whose numpy mean (float32) is taken, and the
video value `(255.0 - mean) / 255.0` (`cal_score`, :45-49). The aggregate is the mean of
the video values (results/aggregate.py). Weight-free, and reproduced exactly (the same
float32 reductions in the same order).

Kept: BGR channels (the mean is channel-blind, so RGB would give the same number, but
the per-pair float32 sums are taken in BGR memory order as upstream's are); the float32
means (a float64 mean can differ in the last bits on large frames).

Differs:
  * Frames: the runner's one OpenCV decode of the whole video (Video.rgb, back to BGR by
    Video.bgr) instead of this dimension's own cv2.VideoCapture loop: the same pixels.
  * An undecodable video (no frame): upstream's `assert frames != []` is caught in
    `temporal_flickering` (:56-59) and the video silently left out of the results and
    the mean. Here it is an error (ValueError), which the runner records as an error
    row naming the video.
  * One frame: upstream's mean over zero pairs is NaN (numpy's RuntimeWarning), stored as
    the video's value and poisoning the mean. Here it is an error (ValueError).
  * Frames of different sizes cannot occur in one decoded video (upstream's
    calculate_mae would return None for them).
Which videos are scored (the static filter, spec §5.3) is static_filter.py's.
"""

import cv2
import numpy as np

from benchmarks.vbench import dimension

NAME = "temporal_flickering"


def pair_maes(bgr: np.ndarray) -> np.ndarray:
    """float32 (T - 1,): the mean absolute difference of each consecutive pair."""
    values = [np.mean(cv2.absdiff(first.astype(np.float32), second.astype(np.float32)))
              for first, second in zip(bgr[:-1], bgr[1:])]
    return np.array(values, dtype=np.float32)


def score(bgr: np.ndarray) -> float:
    """(255 - mean pair MAE) / 255 of uint8 (T, H, W, 3) BGR frames, T >= 2.

    Raises:
        ValueError: Fewer than 2 frames (see module docstring).
    """
    if bgr.ndim != 4 or bgr.shape[-1] != 3:
        raise ValueError(f"expected (T, H, W, 3) frames, got shape {bgr.shape}")
    if len(bgr) == 0:
        raise ValueError("no decodable frame (upstream skips such a video silently)")
    if len(bgr) < 2:
        raise ValueError("1 frame: no frame pair (upstream's value is NaN)")
    return (255.0 - float(np.mean(pair_maes(bgr)))) / 255.0


def compute(video: dimension.Video) -> dimension.Value:
    """The official per-video value (the module docstring's arithmetic).

    Raises:
        ValueError: Fewer than 2 frames.
    """
    return dimension.Value(video_results=score(video.bgr()))
