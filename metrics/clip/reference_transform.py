"""Test helpers: open_clip's OpenAI eval transform written out with PIL and numpy, and frames.

An independent transcription of Resize(224, BICUBIC) + CenterCrop(224) + ToTensor
+ Normalize(OpenAI mean/std) on `Image.fromarray(cv2.cvtColor(bgr, BGR2RGB))`, for
checking metrics.clip.image_transform (which calls torchvision) against.
"""

import numpy as np
from PIL import Image

MEAN = np.array([0.48145466, 0.4578275, 0.40821073], dtype=np.float32)
STD = np.array([0.26862954, 0.26130258, 0.27577711], dtype=np.float32)


def resized_size(width, height, size=224):
    """(width, height) after resizing the shorter side to `size`; the longer one truncated."""
    if width <= height:
        return size, int(size * height / width)
    return int(size * width / height), size


def crop_offset(side, size=224, floor=False):
    """open_clip/torchvision: int(round((side - size) / 2)); floor=True: transformers'."""
    if floor:
        return int((side - size) / 2.0)
    return int(round((side - size) / 2.0))


def reference_pixels(frame_bgr, size=224, floor_crop=False) -> np.ndarray:
    """(3, size, size) float32: the transform of one (H, W, 3) uint8 BGR frame."""
    rgb = np.ascontiguousarray(np.asarray(frame_bgr)[:, :, ::-1])
    height, width = rgb.shape[:2]
    new_width, new_height = resized_size(width, height, size)
    image = Image.fromarray(rgb)
    if (new_width, new_height) != (width, height):
        image = image.resize((new_width, new_height), Image.Resampling.BICUBIC)
    top = crop_offset(new_height, size, floor_crop)
    left = crop_offset(new_width, size, floor_crop)
    pixels = np.asarray(image, dtype=np.uint8)[top:top + size, left:left + size]
    unit = pixels.astype(np.float32) / np.float32(255)
    return ((unit - MEAN) / STD).transpose(2, 0, 1)


def smooth_frame(height, width, seed) -> np.ndarray:
    """A smooth random (height, width, 3) BGR uint8 image: bilinearly upsampled noise."""
    rng = np.random.default_rng(seed)
    coarse = rng.uniform(0, 255, (height // 8 + 2, width // 8 + 2, 3))
    rows = np.linspace(0, coarse.shape[0] - 1, height)
    cols = np.linspace(0, coarse.shape[1] - 1, width)
    r0 = np.floor(rows).astype(int).clip(0, coarse.shape[0] - 2)
    c0 = np.floor(cols).astype(int).clip(0, coarse.shape[1] - 2)
    fr = (rows - r0)[:, None, None]
    fc = (cols - c0)[None, :, None]
    top = coarse[r0][:, c0] * (1 - fc) + coarse[r0][:, c0 + 1] * fc
    bottom = coarse[r0 + 1][:, c0] * (1 - fc) + coarse[r0 + 1][:, c0 + 1] * fc
    return (top * (1 - fr) + bottom * fr).round().clip(0, 255).astype(np.uint8)
