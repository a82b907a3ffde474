"""MiraBench `dynamic_degree` of one clip (spec §3.2; official evaluation/dynamic_degree.py).

For every consecutive pair of extracted frames (frame interval 1), RGB as float 0..255
at native size: InputPadder (sintel: centred replicate padding to multiples of 8),
`RAFT(i1, i2, iters=20, test_mode=True)` with raft-things.pth (metrics.flow.raft_things),
per-pixel |flow| on the PADDED flow (never unpadded), and the mean of its
int(0.05 * H' * W') largest values (H', W' the padded size). The clip's value is the mean
over pairs, in native pixels; no threshold. The per-pair statistic is the generic
metrics.flow.dynamic_degree; MiraBench's part is frame interval 1, the 5 % and the mean.
"""

import numpy as np
import torch

from benchmarks.mirabench.model_metrics import clip_frames
from metrics.flow import dynamic_degree

TOP_FRACTION = 0.05


def pair_scores(frames: np.ndarray, model: torch.nn.Module) -> list:
    """The top-5 % mean flow magnitude of each consecutive pair (see module docstring)."""
    frames = clip_frames.checked(frames, min_frames=2)
    return dynamic_degree.pair_top_speeds(frames, model, TOP_FRACTION)


def compute(frames: np.ndarray, model: torch.nn.Module) -> float:
    """The clip's dynamic degree.

    Args:
        frames: uint8 [T, H, W, 3] RGB, every frame (T >= 2).
        model: metrics.flow.raft_things.load_raft_things(<raft-things.pth>, device).

    Raises:
        ValueError: Fewer than 2 frames or frames that are not uint8 RGB.
    """
    return float(np.mean(pair_scores(frames, model)))
