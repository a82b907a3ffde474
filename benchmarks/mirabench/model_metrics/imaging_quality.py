"""MiraBench `imaging_quality` of one clip (spec §3.4; official evaluation/imaging_quality.py).

pyiqa's MUSIQ with the SPAQ weights (`MUSIQ(pretrained_model_path=
pyiqa_model/musiq_spaq_ckpt-358bb6af.pth)`, regression head), here metrics.iqa.musiq,
which loads that file unchanged. Each frame in the "longer" mode: a float copy (0-255)
shrunk by torchvision's Resize to (int(s * h), int(s * w)), s = 512 / max(h, w), when
max(h, w) > 512 (the longer side is sometimes 511), then / 255. The clip's value is the
mean of the per-frame MUSIQ outputs over ALL frames on the raw MUSIQ-SPAQ scale (about
0-100; not divided by 100).

Resize flavour: Resize's tensor default is bilinear WITHOUT antialias in torchvision
0.13.1, the version MiraData's README pins (torch 1.12.1), and with antialias from 0.17
on; ANTIALIAS follows the README. On the parity frames the other flavour moves a
frame's score by 0.1-2 points (metrics/iqa/testdata/musiq_parity.json records both).

Known differences: the official loop scores one frame per call; `batch_size` frames per
call here (float rounding only, at most 4e-6 on the parity frames). Official CUDA runs
(torch 1.12.1) let cuDNN convolutions use TF32 on Ampere and newer GPUs; the parity
figures are float32 on the CPU.
"""

import numpy as np

from benchmarks.mirabench.model_metrics import clip_frames
from metrics.iqa import musiq

MAX_SIDE = 512
ANTIALIAS = False  # torchvision 0.13.1's Resize on a tensor


def compute(frames: np.ndarray, model: musiq.Musiq, batch_size: int = 4) -> float:
    """The clip's mean MUSIQ-SPAQ score.

    Args:
        frames: uint8 [T, H, W, 3] RGB, every frame (T >= 1).
        model: metrics.iqa.musiq.load_musiq(<musiq_spaq_ckpt-358bb6af.pth>, device).
        batch_size: Frames per network call.

    Raises:
        ValueError: Bad frames.
    """
    frames = clip_frames.checked(frames)
    return float(np.mean(musiq.frame_scores(model, frames, MAX_SIDE, ANTIALIAS, batch_size)))
