"""open_clip's inference transform for the OpenAI CLIP weights, on BGR frames.

The official code embeds frames with `open_clip.create_model_and_transforms(<arch>,
pretrained="openai")` and its third return value, the eval transform. For the
OpenAI tags open_clip's pretrained config says mean/std = OPENAI_DATASET_MEAN/STD,
interpolation "bicubic", resize_mode "shortest", and the image size is the
model's (224 for ViT-L-14 and ViT-B-32). For a square size in "shortest" mode
`open_clip.transform.image_transform(..., is_train=False)` composes exactly:

    torchvision Resize(224, interpolation=BICUBIC)   # shorter side -> 224
    torchvision CenterCrop(224)
    MaybeConvertMode("RGB"), MaybeToTensor()         # ToTensor: uint8 / 255
    Normalize(mean=(0.48145466, 0.4578275, 0.40821073),
              std=(0.26862954, 0.26130258, 0.27577711))

applied to the RGB PIL image `Image.fromarray(cv2.cvtColor(bgr, BGR2RGB))`.
This module runs those same torchvision functions on the same PIL image, so it
reproduces open_clip's tensors exactly (the test checks it against a PIL/numpy
transcription). Details that matter:

* Resize on a PIL image goes to `PIL.Image.resize(..., BICUBIC)`; PIL always
  antialiases (its bicubic kernel, a = -0.5, is widened by the downscale
  factor) and rounds the result back to uint8. torchvision's `antialias`
  argument is ignored for PIL input. The new size is (224, int(224 * long /
  short)): the longer side is truncated, not rounded; an image already at that
  size is not resampled.
* CenterCrop offsets are `int(round((side - 224) / 2.0))`: Python's round,
  half to even.
* ToTensor divides by 255 in float32; Normalize subtracts the float32 mean and
  divides by the float32 std.

Where transformers' `CLIPImageProcessor` (transformers 5.x, the torchvision
backend; the processor shipped with openai/clip-vit-*) differs, which is why
it is NOT used here:

1. Resize runs `torchvision.transforms.v2.functional.resize` on a uint8
   *tensor* (bicubic, antialias=True), not PIL's resampler: pixel values can
   differ by a few uint8 levels, most along edges.
2. Center crop offsets are `int((side - 224) / 2.0)` (floor), so when
   (side - 224) % 4 == 3 the crop starts one pixel earlier than open_clip's
   (e.g. a 227-pixel side: 1 vs 2).
3. Rescale and normalise are fused: (x - 255 * mean) / (255 * std) in
   float32, a last-bit difference from (x / 255 - mean) / std.
4. transformers' PIL backend (`CLIPImageProcessorPil`) resizes with PIL
   but keeps the floor crop offsets and its own rescale arithmetic.

Output sizes agree (both truncate the longer side), and mean/std are the same
constants.
"""

from typing import Sequence

import numpy as np
from PIL import Image
import torch
from torchvision.transforms import InterpolationMode
from torchvision.transforms import functional as tvf

OPENAI_CLIP_MEAN = (0.48145466, 0.4578275, 0.40821073)
OPENAI_CLIP_STD = (0.26862954, 0.26130258, 0.27577711)
DEFAULT_IMAGE_SIZE = 224


def bgr_to_pil(frame_bgr: np.ndarray) -> Image.Image:
    """An (H, W, 3) uint8 BGR frame as an RGB PIL image (cv2.cvtColor BGR2RGB).

    Raises:
        ValueError: If the frame is not (H, W, 3) uint8.
    """
    frame = np.asarray(frame_bgr)
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise ValueError(f"expected an (H, W, 3) uint8 BGR frame, got {frame.shape} "
                         f"{frame.dtype}")
    return Image.fromarray(np.ascontiguousarray(frame[:, :, ::-1]))


def open_clip_transform(image: Image.Image, size: int = DEFAULT_IMAGE_SIZE) -> torch.Tensor:
    """open_clip's OpenAI eval transform of one RGB PIL image.

    Args:
        image: The image (converted to RGB if it is not).
        size: The model's input size (224 for ViT-L/14 and ViT-B/32).

    Returns:
        (3, size, size) float32 tensor, normalised with the OpenAI CLIP mean/std.
    """
    if size <= 0:
        raise ValueError(f"size must be positive, got {size}")
    resized = tvf.resize(image, size, interpolation=InterpolationMode.BICUBIC)
    cropped = tvf.center_crop(resized, size)
    tensor = tvf.to_tensor(cropped.convert("RGB"))
    return tvf.normalize(tensor, OPENAI_CLIP_MEAN, OPENAI_CLIP_STD)


def clip_preprocess_tensor(images: torch.Tensor, size: int = DEFAULT_IMAGE_SIZE) -> torch.Tensor:
    """pyiqa's `clip_preprocess_tensor` (archs/arch_util.py, read at pyiqa 0.1.16): the
    tensor resize of the shorter side to `size` (torchvision, bicubic, antialias=True),
    centre crop to size x size, OpenAI CLIP normalisation.

    Args:
        images: (N, 3, H, W) float tensor in [0, 1].

    Raises:
        ValueError: Not a 4-D float tensor with 3 channels.
    """
    if images.ndim != 4 or images.shape[1] != 3 or not images.is_floating_point():
        raise ValueError(f"expected an (N, 3, H, W) float tensor, got {images.dtype} "
                         f"{tuple(images.shape)}")
    resized = tvf.resize(images, size, interpolation=InterpolationMode.BICUBIC, antialias=True)
    return tvf.normalize(tvf.center_crop(resized, size), OPENAI_CLIP_MEAN, OPENAI_CLIP_STD)


def frames_to_pixel_values(frames_bgr: Sequence[np.ndarray],
                           size: int = DEFAULT_IMAGE_SIZE) -> torch.Tensor:
    """Stacks the open_clip transform of each BGR frame (sizes may differ).

    Returns:
        (N, 3, size, size) float32 tensor on the CPU.

    Raises:
        ValueError: No frames, or a frame that is not (H, W, 3) uint8.
    """
    if len(frames_bgr) == 0:
        raise ValueError("expected at least one frame")
    return torch.stack([open_clip_transform(bgr_to_pil(f), size) for f in frames_bgr])
