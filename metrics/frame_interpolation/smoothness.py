"""Frame-interpolation motion smoothness and AMT's memory-based scale rule.

Transcribed from the arithmetic around an AMT interpolator (MCG-NKU/AMT as driven by
the evaluation scripts that score motion smoothness with AMT):

* Inputs: the even frames `frames[0::2]` (RGB uint8 -> float32 / 255, [1, 3, H, W]),
  padded by AMT's InputPadder (replicate, centred [pad // 2, pad - pad // 2]) to
  multiples of `int(16 / scale)`.
* Each adjacent pair is interpolated at t = 0.5; the outputs are unpadded and turned
  back into images by `(x * 255).clip(0, 255).astype(uint8)` (TRUNCATION, not rounding).
* vfi = mean over k of `np.mean(cv2.absdiff(frames[1::2][k], interpolated[k]))` (k over
  the interpolated midpoints; with an even frame count the last odd frame is unused);
  score = (255 - vfi) / 255.

`memory_scale` is the rule that picks `scale` from the device: on CUDA
`min(1, 1024*512 / (h*w) * sqrt((total_memory - 2500 MiB) / 1500 MiB))`, then
`1 / floor(16 / sqrt(scale)) * 16`; on CPU (no memory given) the anchors make it 1.
The scale changes the numbers (the interpolator runs its flow at that scale), so a
caller records the scale it used and can pass one explicitly to compare machines.
"""

from typing import Callable, Optional

import cv2
import numpy as np
import torch
import torch.nn.functional as F

from metrics.flow import tensors

ANCHOR_RESOLUTION = 1024 * 512
ANCHOR_MEMORY = 1500 * 1024 ** 2
ANCHOR_MEMORY_BIAS = 2500 * 1024 ** 2
CPU_ANCHOR_RESOLUTION = 8192 * 8192
SCALE_DIVISOR = 16

# (frame0, frame1, scale) -> the middle frame; [1, 3, H, W] float tensors in [0, 1].
Interpolator = Callable[[torch.Tensor, torch.Tensor, float], torch.Tensor]


def memory_scale(height: int, width: int, total_memory_bytes: Optional[int] = None) -> float:
    """The interpolation scale the memory rule gives (see module docstring).

    Args:
        height, width: Frame size.
        total_memory_bytes: The CUDA device's total memory, or None for the CPU rule.

    Raises:
        ValueError: Less memory than the 2500 MiB bias (the rule's square root fails).
    """
    if total_memory_bytes is None:
        resolution, memory, bias, available = CPU_ANCHOR_RESOLUTION, 1, 0, 1
    else:
        resolution, memory, bias = ANCHOR_RESOLUTION, ANCHOR_MEMORY, ANCHOR_MEMORY_BIAS
        available = total_memory_bytes
    if available <= bias:
        raise ValueError(f"{total_memory_bytes} bytes is below the rule's {bias}-byte bias")
    scale = resolution / (height * width) * np.sqrt((available - bias) / memory)
    scale = 1 if scale > 1 else scale
    return float(1 / np.floor(1 / np.sqrt(scale) * SCALE_DIVISOR) * SCALE_DIVISOR)


def pad_divisor(scale: float) -> int:
    """AMT's padding multiple for a scale: int(16 / scale)."""
    return int(SCALE_DIVISOR / scale)


def _to_image(tensor: torch.Tensor) -> np.ndarray:
    return (tensor * 255.).detach().squeeze(0).permute(1, 2, 0).cpu().numpy().clip(
        0, 255).astype(np.uint8)


def interpolated_midpoints(frames: np.ndarray, interpolate: Interpolator, scale: float,
                           device=None) -> list:
    """The uint8 middle frame of each pair of even frames (see module docstring)."""
    evens = [torch.from_numpy(np.ascontiguousarray(f)).permute(2, 0, 1)[None] / 255.0
             for f in frames[0::2]]
    if len(evens) < 2:
        raise ValueError(f"{len(frames)} frames give {len(evens)} even frames; need 2")
    left, right, top, bottom = tensors.centred_padding(*evens[0].shape[-2:], pad_divisor(scale))
    padded = [F.pad(e, (left, right, top, bottom), mode="replicate") for e in evens]
    height, width = padded[0].shape[-2:]
    out = []
    for first, second in zip(padded[:-1], padded[1:]):
        with torch.no_grad():
            middle = interpolate(first.to(device), second.to(device), scale)
        out.append(_to_image(middle[..., top:height - bottom, left:width - right]))
    return out


def interpolation_smoothness(frames: np.ndarray, interpolate: Interpolator, scale: float,
                             device=None) -> float:
    """(255 - vfi) / 255 of a clip of uint8 [T, H, W, 3] RGB frames (T >= 3)."""
    middles = interpolated_midpoints(frames, interpolate, scale, device)
    odds = frames[1::2]
    vfi = np.mean(np.array([np.mean(cv2.absdiff(odds[k], middles[k]))
                            for k in range(len(middles))]))
    return float((255.0 - vfi) / 255.0)
