"""Motion smoothness of a clip around an AMT interpolator (the VBench-style motion
smoothness: metrics.frame_interpolation.smoothness with AMT's official call).

`model` is called as AMT's evaluation scripts call it: `model(in_0, in_1, embt,
scale_factor=scale, eval=True)["imgt_pred"]` with embt = 0.5 as a [1, 1, 1, 1] tensor
(metrics.frame_interpolation.amt's AMT-S, or any module with that call). The rest (even
frames, AMT padding, truncating uint8 conversion, vfi, (255 - vfi) / 255 on a 0-1 scale)
is smoothness.interpolation_smoothness. `device_scale` applies AMT's memory rule
(smoothness.memory_scale) on a torch device. Which frames, the scale used, any rescaling
and rounding are the caller's.
"""

import numpy as np
import torch

from metrics.frame_interpolation import smoothness


def device_scale(height: int, width: int, device) -> float:
    """The scale AMT's memory rule picks for frames of height x width on `device` (1 on CPU)."""
    device = torch.device(device)
    total = torch.cuda.get_device_properties(device).total_memory if device.type == "cuda" else None
    return smoothness.memory_scale(height, width, total)


def interpolator(model, device) -> smoothness.Interpolator:
    """(frame0, frame1, scale) -> AMT's middle frame at t = 0.5, with the official call."""
    embt = torch.tensor(1 / 2).float().view(1, 1, 1, 1).to(device)

    def interpolate(first, second, used_scale):
        return model(first, second, embt, scale_factor=used_scale, eval=True)["imgt_pred"]

    return interpolate


def score(frames_rgb: np.ndarray, model, scale: float, device="cpu") -> float:
    """(255 - vfi) / 255 of uint8 [T, H, W, 3] RGB frames (T >= 3) at `scale`."""
    return smoothness.interpolation_smoothness(frames_rgb, interpolator(model, device), scale,
                                               device)
