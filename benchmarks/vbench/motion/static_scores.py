"""The RAFT side of VBench's static filter: is one video static (spec §5.3).

Upstream (vbench/cli/static_filter.py @45e79ec, `StaticFilter.infer` :77-89): every cv2
frame as RGB float 0..255 at native size (no fps subsampling, unlike dynamic_degree);
RAFT (raft-things, 20 iterations, test mode, InputPadder's centred padding to multiples
of 8) on the consecutive pairs, then on first -> last and last -> first; each pair's
score the mean of the int(0.02 * Hp * Wp) largest |flow| of the padded field
(metrics.flow.dynamic_degree.pair_top_speeds with fraction 0.02 is exactly this); the
decision is static_filter.is_static with static_filter.thresholds(H, W, T).

Differs: frames come from one OpenCV decode of the video (the same pixels); upstream
hard-codes DEVICE = 'cuda' for the frames, here they go to the model's device. Frames
whose padded short side is under 128 px are a ValueError (upstream's RAFT gives NaN
flow there, every comparison fails and the video counts as STATIC; see
dynamic_degree.check_raft_size).
"""

from typing import List, Tuple

import numpy as np
import torch

from benchmarks.vbench.motion import dynamic_degree
from benchmarks.vbench.motion import static_filter
from metrics.flow import dynamic_degree as flow_dynamic_degree


def pair_scores(rgb: np.ndarray, model: torch.nn.Module) -> Tuple[List[float], List[float]]:
    """(consecutive pair scores (T - 1), [first -> last, last -> first]) of uint8 RGB frames.

    Raises:
        ValueError: No frame, or frames too small for RAFT.
    """
    if len(rgb) == 0:
        raise ValueError("no decodable frame (upstream's assert fails)")
    dynamic_degree.check_raft_size(*rgb.shape[1:3])
    fraction = static_filter.TOP_FRACTION
    consecutive = flow_dynamic_degree.pair_top_speeds(list(rgb), model, fraction)
    loops = flow_dynamic_degree.pair_top_speeds([rgb[0], rgb[-1], rgb[0]], model, fraction)
    return consecutive, loops


def is_static_video(rgb: np.ndarray, model: torch.nn.Module) -> bool:
    """Whether uint8 (T, H, W, 3) RGB frames pass the static test."""
    consecutive, loops = pair_scores(rgb, model)
    thres, count_num = static_filter.thresholds(rgb.shape[1], rgb.shape[2], len(rgb))
    return static_filter.is_static(consecutive, loops, thres, count_num)
