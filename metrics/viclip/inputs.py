"""What a ViCLIP text-video score feeds the model (OpenGVLab InternVideo ViCLIP as driven by
a text-video alignment script: decord frames, CLIP transform, ViCLIP's tokenizer); the
model itself is not here.

* Frames: `middle_frame_indices(vlen)` (n = 8): split [0, vlen) at linspace(0, vlen, n + 1)
  .astype(int), take (start + end - 1) // 2 of each interval (end exclusive), pad with the
  last index when vlen < n.
* Pixels: the sampled uint8 frames as a (T, 3, H, W) TENSOR through torchvision
  Resize(224, BICUBIC) (shorter side; the longer one int(224 * long / short)),
  CenterCrop(224), float / 255, CLIP mean/std. Resizing a tensor is where versions
  differ: the official environment (torch 1.12 / torchvision 0.13) did not antialias
  tensor resizes, current torchvision does by default; `antialias=False` is the official
  behaviour, True the current default, and the choice is the caller's recorded setting.
  A uint8 tensor resize rounds and clamps back to uint8 before the division.
* Text: `[sot] + bpe(caption) + [eot]`, cut to the first 32 tokens with the LAST ONE
  replaced by eot when longer, zero-padded to 32 (ViCLIP's `max_txt_l`), so captions
  beyond ~30 tokens are cut off.
"""

from typing import List, Sequence

import numpy as np
import torch
from torchvision.transforms import InterpolationMode
from torchvision.transforms import functional as tvf

NUM_FRAMES = 8
CONTEXT_LENGTH = 32
IMAGE_SIZE = 224
CLIP_MEAN = (0.48145466, 0.4578275, 0.40821073)
CLIP_STD = (0.26862954, 0.26130258, 0.27577711)


def middle_frame_indices(vlen: int, num_frames: int = NUM_FRAMES) -> List[int]:
    """The "middle" sample of num_frames intervals of a vlen-frame video (module doc)."""
    if vlen < 1 or num_frames < 1:
        raise ValueError(f"need a video of >= 1 frame and >= 1 sample, got {vlen}, {num_frames}")
    count = min(num_frames, vlen)
    edges = np.linspace(start=0, stop=vlen, num=count + 1).astype(int)
    indices = [int((edges[i] + edges[i + 1] - 1) // 2) for i in range(count)]
    return indices + [indices[-1]] * (num_frames - count)


def pixel_values(frames: np.ndarray, antialias: bool = False) -> torch.Tensor:
    """(T, 3, 224, 224) float32 model input of uint8 [T, H, W, 3] RGB frames (module doc).

    Raises:
        ValueError: Frames that are not uint8 [T, H, W, 3].
    """
    frames = np.asarray(frames)
    if frames.ndim != 4 or frames.shape[-1] != 3 or frames.dtype != np.uint8:
        raise ValueError(f"expected uint8 [T, H, W, 3] RGB frames, got {frames.shape} {frames.dtype}")
    video = torch.from_numpy(np.ascontiguousarray(frames)).permute(0, 3, 1, 2)
    video = tvf.resize(video, IMAGE_SIZE, interpolation=InterpolationMode.BICUBIC,
                       antialias=antialias)
    video = tvf.center_crop(video, IMAGE_SIZE).float().div(255.0)
    return tvf.normalize(video, CLIP_MEAN, CLIP_STD)


def context_tokens(bpe_ids: Sequence[int], sot: int, eot: int,
                   context_length: int = CONTEXT_LENGTH) -> List[int]:
    """[sot] + bpe_ids + [eot], truncated with eot kept last, zero-padded to context_length."""
    tokens = [sot] + list(bpe_ids) + [eot]
    if len(tokens) > context_length:
        tokens = tokens[:context_length]
        tokens[-1] = eot
    return tokens + [0] * (context_length - len(tokens))
