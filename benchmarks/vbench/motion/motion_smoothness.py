"""VBench `motion_smoothness` of one video (spec §5.2, §9 quirk 5).

Upstream (vbench/motion_smoothness.py @45e79ec, with third_party/amt/utils/utils.py):
  * Frames (`FrameProcess.get_frames`, :33-45): every cv2 frame, converted to RGB.
  * Inputs (`motion_score`, :120-124): the even frames `[0::2]` as float32 / 255
    (`img2tensor`); fewer than 2 of them fail an assert (a video of 1 or 2 frames).
  * Scale (:93-106, :125-131): the CUDA anchors apply only when `self.device == 'cuda'`;
    evaluate.py passes a `torch.device`, which never equals that string, so the CPU
    anchors apply on every device and `scale = 1 / floor(16 / sqrt(1)) * 16 = 1`
    ALWAYS (spec §5.2). So here: SCALE = 1, whatever the model's device.
  * Padding: AMT's InputPadder replicates to multiples of int(16 / 1) = 16, centred with
    the odd pixel right / bottom (amt/utils/utils.py:54-60).
  * Interpolation (:137-146): one pass (niters = 1), AMT-S at embt = 0.5 with
    `scale_factor=1, eval=True` on each adjacent pair of padded inputs (output clamped to
    [0, 1] by the network); the outputs are unpadded and turned into images by
    `(x * 255).clip(0, 255).astype(uint8)`: TRUNCATION (`tensor2img`, :86-89).
  * Score (`vfi_score`, :156-167): the odd original frames `[1::2]` against the
    midpoints, k over the NUMBER OF MIDPOINTS (an even frame count leaves the last odd
    frame unused); per pair the mean of the uint8 `cv2.absdiff` (float64); their mean;
    the video value `(255 - vfi) / 255`. The aggregate is the mean over videos.
metrics.frame_interpolation.amt_smoothness.score is exactly this arithmetic around AMT's
official call, with the scale passed in.

Differs: frames come from the runner's one OpenCV decode (the same pixels). A video of
fewer than 3 frames is a ValueError (upstream's AssertionError ends the whole run).
AMT-S itself needs padded sides of at least 128 px (metrics.frame_interpolation.amt:
ValueError where upstream gives NaN or fails).
"""

import numpy as np
import torch

from benchmarks.vbench import dimension
from metrics.frame_interpolation import amt_smoothness

NAME = "motion_smoothness"
# Upstream's `self.device == 'cuda'` is False for a torch.device: the CPU rule, scale 1.
SCALE = 1.0


def score(rgb: np.ndarray, model: torch.nn.Module) -> float:
    """(255 - vfi) / 255 of uint8 (T, H, W, 3) RGB frames at SCALE on the model's device.

    Raises:
        ValueError: Fewer than 3 frames, or frames AMT-S cannot take.
    """
    if rgb.ndim != 4 or rgb.shape[-1] != 3 or rgb.dtype != np.uint8:
        raise ValueError(f"expected uint8 (T, H, W, 3) frames, got {rgb.dtype} {rgb.shape}")
    if len(rgb) < 3:
        raise ValueError(f"{len(rgb)} frames give {len(rgb[0::2])} input frame(s); AMT needs 2 "
                         "(upstream's assert)")
    device = next(iter(model.parameters()), torch.zeros(0)).device
    return amt_smoothness.score(rgb, model, SCALE, device)


def compute(video: dimension.Video, model: torch.nn.Module) -> dimension.Value:
    """The official per-video value.

    Args:
        video: The video (every frame, RGB, native size).
        model: metrics.frame_interpolation.amt.load_amt_s(<amt-s.pth>, device).

    Raises:
        ValueError: See `score`.
    """
    return dimension.Value(video_results=score(video.rgb, model))
