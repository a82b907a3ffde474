"""VBench `dynamic_degree` of one video (spec §5.1, §5.2, §9 quirk 6).

Upstream (vbench/dynamic_degree.py @45e79ec):
  * Frames (`get_frames`, :96-120): every cv2 frame, converted to RGB, as float 0..255
    at native size; then every `interval`-th from the first, `interval =
    max(1, round(fps / 8))` with fps = cv2.CAP_PROP_FPS and Python's round (banker's:
    12 fps -> 2 (1.5 rounds to 2), 20 -> 2 (2.5 rounds to 2), 30 -> 4).
  * Pair score (`infer` :74-79, `get_score` :42-56): RAFT (raft-things, 20 iterations,
    test mode) on InputPadder's centred replicate padding to multiples of 8, and the
    mean of the int(h * w * 0.05) largest |flow| of the PADDED field (h, w the padded
    size; float32 numpy, sorted descending). metrics.flow.dynamic_degree does exactly
    this on torchvision's raft_large with the official weights (metrics.flow.raft_things).
  * Thresholds (`set_params`, :59-61): thres = 6.0 * (min(H, W) / 256.0) with the
    native (unpadded) H, W; count_num = round(4 * (N / 16.0)), N the kept frames,
    banker's rounding (N = 2 -> 0, N = 10 -> 2, N = 6 -> 2, N = 14 -> 4).
  * Decision (`check_move`, :84-93): walking the pairs in order, count those with
    score > thres, and answer True as soon as count >= count_num (so count_num = 0 is
    True after the first pair, whatever its score); False when the pairs run out,
    which makes a video with ONE kept frame (no pair) False even though count_num is 0.
  * The video value is that bool; the aggregate is the mean of the bools.

Kept: all of the above, the float order of the threshold arithmetic included.
Differs: frames come from the runner's one OpenCV decode (the same pixels) and the fps
from the same capture's CAP_PROP_FPS. Upstream reads image folders without subsampling;
the runner hands videos only. An fps that is NaN makes upstream's round() raise; here it
is a ValueError, as is an empty video (upstream's assert). Frames whose padded short
side is under 128 px: upstream's RAFT returns NaN flow there (its 1/64 correlation level
is 1 px and its bilinear_sampler divides by W - 1 = 0, core/utils_core/utils.py:61-62;
seen in a scratch run), every NaN score fails `> thres` and the bool is count_num == 0;
torchvision's RAFT refuses such frames, so here it is a ValueError.
"""

import math
from typing import Iterable, Iterator, Optional, Tuple

import numpy as np
import torch

from benchmarks.vbench import dimension
from metrics.flow import dynamic_degree as flow_dynamic_degree

NAME = "dynamic_degree"
TARGET_FPS = 8
TOP_FRACTION = 0.05
# torchvision's RAFT needs 1/8 feature maps of 16 px (upstream's gives NaN below that).
RAFT_MIN_PADDED_SIDE = 128


def frame_interval(fps: float) -> int:
    """max(1, round(fps / 8)), Python's banker's rounding.

    Raises:
        ValueError: fps is NaN or infinite.
    """
    if not math.isfinite(fps):
        raise ValueError(f"frame rate {fps}: round() of it fails upstream")
    return max(1, round(fps / TARGET_FPS))


def kept_frames(rgb: np.ndarray, fps: float) -> np.ndarray:
    """Every frame_interval(fps)-th frame from the first."""
    return rgb[::frame_interval(fps)]


def thresholds(height: int, width: int, kept: int) -> Tuple[float, int]:
    """(thres, count_num) for native frames of height x width and `kept` frames."""
    return 6.0 * (min(height, width) / 256.0), round(4 * (kept / 16.0))


def moves(scores: Iterable[float], thres: float, count_num: int,
          pairs: Optional[int] = None) -> bool:
    """The decision walk over the pair scores in order (see module docstring).

    `scores` may be lazy: the walk stops at the first pair that decides, as check_move
    does, so the later pairs are never scored. With `pairs` (how many scores there are)
    it also stops once the pairs left cannot reach count_num: that answer is False
    whatever they score, so the decision is check_move's on every video."""
    if pairs is not None and count_num <= 0:
        return pairs > 0  # check_move answers at its first pair, whatever it scores
    count = 0
    for done, value in enumerate(scores):
        if value > thres:
            count += 1
        if count >= count_num:
            return True
        if pairs is not None and count + (pairs - done - 1) < count_num:
            return False
    return False


def lazy_pair_scores(rgb: np.ndarray, model: torch.nn.Module) -> Iterator[float]:
    """pair_scores one pair at a time, each scored only when the walk asks for it (the
    same score per pair: pair_top_speeds runs one pair per forward)."""
    for i in range(len(rgb) - 1):
        yield pair_scores(rgb[i:i + 2], model)[0]


def check_raft_size(height: int, width: int) -> None:
    """ValueError when RAFT cannot score frames of height x width (see module docstring)."""
    padded = min(-(-height // 8) * 8, -(-width // 8) * 8)
    if padded < RAFT_MIN_PADDED_SIDE:
        raise ValueError(f"{height} x {width} frames pad to a short side of {padded} px; RAFT "
                         f"needs {RAFT_MIN_PADDED_SIDE} (upstream's RAFT returns NaN flow here)")


def pair_scores(rgb: np.ndarray, model: torch.nn.Module) -> list:
    """The top-5 % mean |flow| of each consecutive pair of `rgb` (already subsampled)."""
    return flow_dynamic_degree.pair_top_speeds(list(rgb), model, TOP_FRACTION)


def compute(video: dimension.Video, model: torch.nn.Module) -> dimension.Value:
    """The official per-video bool, as 1.0 / 0.0.

    Args:
        video: The video (every frame, RGB, native size, and its fps).
        model: metrics.flow.raft_things.load_raft_things(<raft-things.pth>, device).

    Raises:
        ValueError: No frame, a NaN / infinite fps, or frames too small for RAFT.
    """
    if len(video.rgb) == 0:
        raise ValueError("no decodable frame (upstream's assert fails)")
    kept = kept_frames(video.rgb, video.fps)
    height, width = kept.shape[1:3]
    check_raft_size(height, width)
    thres, count_num = thresholds(height, width, len(kept))
    # Upstream scores every pair, then walks them; the walk decides at its first deciding
    # pair, so only the pairs up to it are scored here (1-15 of 15 on a 16-frame video).
    decided = moves(lazy_pair_scores(kept, model), thres, count_num, pairs=len(kept) - 1)
    return dimension.Value(video_results=float(decided))
