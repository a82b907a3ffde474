"""VBench's frame tensors and transforms (spec §4; upstream vbench/utils.py:33-66, 108-200).

`load_video` turns the decoded uint8 frames into `torch.Tensor(frames)`: float32 0..255,
(T, C, H, W), and the image dimensions apply their transform to that float tensor, so
every resize here runs on float values: unclamped (bicubic may overshoot 0..255) and,
as upstream asks explicitly, without antialiasing. `read_frames_decord_by_fps` (ViCLIP's
reader) keeps uint8 instead, so ViCLIP's resize rounds and clamps back to uint8; that
path is metrics.viclip.inputs.pixel_values.

* `clip_pixels` = clip_transform(224) (utils.py:33-39): Resize(224, BICUBIC,
  antialias=False) of the shorter side (the longer one int(224 * long / short)),
  CenterCrop(224) (offsets int(round((side - 224) / 2))), / 255, CLIP mean/std.
* `dino_pixels` = dino_transform(224) (utils.py:49-54): Resize(224) (bilinear,
  antialias=False) of the shorter side, NO crop, / 255, ImageNet mean/std.

Every operation is per frame, so chunking a video changes nothing; `chunks` bounds the
float copy of a long video (upstream holds the whole video as float32 at once).
"""

from typing import Iterator

import numpy as np
import torch
from torchvision.transforms import InterpolationMode
from torchvision.transforms import functional as tvf

IMAGE_SIZE = 224
CLIP_MEAN = (0.48145466, 0.4578275, 0.40821073)
CLIP_STD = (0.26862954, 0.26130258, 0.27577711)
IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)


def checked(rgb, min_frames: int = 1) -> np.ndarray:
    """`rgb` as uint8 (T, H, W, 3) with T >= min_frames.

    Raises:
        ValueError: Any other shape, dtype or length.
    """
    rgb = np.asarray(rgb)
    if rgb.ndim != 4 or rgb.shape[-1] != 3 or rgb.dtype != np.uint8 or len(rgb) < min_frames:
        raise ValueError(f"expected uint8 (T >= {min_frames}, H, W, 3) RGB frames, got "
                         f"{rgb.shape} {rgb.dtype}")
    return rgb


def float_video(rgb: np.ndarray) -> torch.Tensor:
    """load_video's tensor: float32 0..255, (T, 3, H, W), of uint8 (T, H, W, 3) RGB frames."""
    return torch.from_numpy(np.ascontiguousarray(rgb)).permute(0, 3, 1, 2).float()


def chunks(rgb: np.ndarray, size: int) -> Iterator[torch.Tensor]:
    """float_video of consecutive runs of `size` frames (size None or < 1: all at once)."""
    step = len(rgb) if not size or size < 1 else size
    for start in range(0, len(rgb), step):
        yield float_video(rgb[start:start + step])


def clip_pixels(video: torch.Tensor, size: int = IMAGE_SIZE) -> torch.Tensor:
    """clip_transform(size) of a float (T, 3, H, W) 0..255 tensor (module doc)."""
    resized = tvf.resize(video, size, interpolation=InterpolationMode.BICUBIC, antialias=False)
    cropped = tvf.center_crop(resized, size).float().div(255.0)
    return tvf.normalize(cropped, CLIP_MEAN, CLIP_STD)


def dino_pixels(video: torch.Tensor, size: int = IMAGE_SIZE) -> torch.Tensor:
    """dino_transform(size) of a float (T, 3, H, W) 0..255 tensor (module doc)."""
    resized = tvf.resize(video, size, interpolation=InterpolationMode.BILINEAR, antialias=False)
    return tvf.normalize(resized.float().div(255.0), IMAGENET_MEAN, IMAGENET_STD)
