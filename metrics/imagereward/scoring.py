"""ImageReward's reward of frames for a prompt, what `ImageReward.score(prompt, [pil])`
returns for one image (its normalised reward, a float32 as a Python float).

Each frame (BGR uint8) goes through ImageReward's transform (CLIP's: Resize(224,
bicubic) on the PIL image, CenterCrop, ToTensor, Normalize), see
metrics.clip.image_transform.open_clip_transform. All frames share one model call (the
prompt's tokens repeated per frame) instead of one call per frame: equal up to float
rounding. The image tower sees each frame alone and knows no prompt, so a benchmark may
run `image_embeds` over the frames of several samples in one call and hand each its
rows (`raw_rewards(..., embeds=...)`). Which frames a benchmark scores, and how it
squashes and averages the rewards, is the benchmark's.
"""

from typing import List, Sequence

import numpy as np
import torch

from metrics.clip import image_transform
from metrics.imagereward import reward_model


def image_embeds(reward: reward_model.ImageReward,
                 frames_bgr: Sequence[np.ndarray]) -> torch.Tensor:
    """The image tower's tokens of each BGR frame (on the model's device)."""
    pixels = torch.stack([image_transform.open_clip_transform(
        image_transform.bgr_to_pil(frame), reward.image_size) for frame in frames_bgr])
    with torch.no_grad():
        return reward.model.image_embeds(pixels.to(reward.device))


def raw_rewards(reward: reward_model.ImageReward, prompt: str,
                frames_bgr: Sequence[np.ndarray], embeds=None) -> List[float]:
    """ImageReward's normalised reward of each BGR frame for `prompt`; `embeds`: the
    frames' image_embeds rows when computed already (an array or tensor, one per frame).

    Raises:
        ValueError: If there is no frame or the prompt is blank.
    """
    if not frames_bgr:
        raise ValueError("expected at least one frame")
    if not prompt or not prompt.strip():
        raise ValueError("ImageReward needs a non-blank prompt")
    if embeds is None:
        embeds = image_embeds(reward, frames_bgr)
    embeds = torch.as_tensor(embeds).to(reward.device)
    if len(embeds) != len(frames_bgr):
        raise ValueError(f"{len(embeds)} image embeds for {len(frames_bgr)} frames")
    text = reward_model.tokenize(reward, prompt, len(frames_bgr))
    with torch.no_grad():
        rewards = reward.model.rewards(embeds, text["input_ids"], text["attention_mask"])
    return [float(value) for value in rewards.cpu().tolist()]
