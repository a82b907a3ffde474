"""MiraBench `temporal_motion_smoothness` of one clip (spec §3.1; official
evaluation/motion_smoothness.py, the VBench algorithm) around an AMT-S interpolator.

`model` is called as the official code calls AMT: `model(in_0, in_1, embt, scale_factor=
scale, eval=True)["imgt_pred"]` with embt = 0.5 as a [1, 1, 1, 1] tensor; everything
else (even frames, AMT padding, truncating uint8 conversion, vfi, (255 - vfi) / 255) is
the generic metrics.frame_interpolation.amt_smoothness; MiraBench's part is every frame,
the scale rule's default and the raw 0-1 scale. The model is metrics.frame_interpolation.amt's
AMT-S (the runner's amt_smoothness family loads it); any module with that call works.

`scale` is a recorded setting: the official code derives it from the CUDA device's total
memory (smoothness.memory_scale(h, w, total_memory)); on CPU, and on any GPU large
enough for the clip, it is 1. Pass the scale a reference run used to reproduce it.
"""

from typing import Optional

import numpy as np

from benchmarks.mirabench.model_metrics import clip_frames
from metrics.frame_interpolation import amt_smoothness


def official_scale(frames: np.ndarray, device) -> float:
    """The scale the official memory rule picks for these frames on `device`."""
    height, width = np.asarray(frames).shape[1:3]
    return amt_smoothness.device_scale(height, width, device)


def compute(frames: np.ndarray, model, scale: Optional[float] = None, device="cpu") -> float:
    """The clip's motion smoothness in [0, 1].

    Args:
        frames: uint8 [T, H, W, 3] RGB, every frame (T >= 3).
        model: An AMT-S network with the official call (see module docstring).
        scale: The interpolation scale; None applies the official rule on `device`.
        device: Where the model runs.

    Raises:
        ValueError: Bad frames or fewer than 3 of them.
    """
    frames = clip_frames.checked(frames, min_frames=3)
    if scale is None:
        scale = official_scale(frames, device)
    return amt_smoothness.score(frames, model, scale, device)
