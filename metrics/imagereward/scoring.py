"""The ImageReward score of one clip: sampled frames, sigmoid, mean (spec §4.6).

Official (`evaluation/automated/metrics/visual_quality.py`, image_reward_score, called
by run_eval.py with n_sample=5 on the 640 max-side frames):

    if not prompt or not prompt.strip(): return None
    indices = [int(i * (N - 1) / (n_sample - 1)) for i in range(n_sample)]
    for each index: pil = RGB PIL image of the BGR frame
        raw = model.score(prompt, [pil])        # a list -> inference_rank
        raw = raw[0] if it is a list or tuple   # one image: torch.squeeze gives a 0-d
                                                # tensor, .tolist() a plain float
        sig = float(1 / (1 + np.exp(-float(raw))))
        (a frame that raises is skipped)
    return round(float(np.mean(sigs)), 4) if sigs else None

The 0-100 percentage and the eval-CSV column rules belong to the benchmark that
uses this score, not here.

Here the sampled frames share one model call (the prompt's tokens repeated per
frame) instead of one call per frame: equal up to float rounding. Each frame goes
through ImageReward's transform (CLIP's: Resize(224, bicubic) on the PIL image,
CenterCrop, ToTensor, Normalize), metrics.clip.image_transform.open_clip_transform.
A failing model call fails the clip (the caller records why) rather than skipping
frames one by one.
"""

import dataclasses
from typing import List, Optional, Sequence

import numpy as np
import torch

from metrics.clip import image_transform
from metrics.imagereward import reward_model

N_SAMPLE = 5  # run_eval.py: image_reward_score(gen, prompt, n_sample=5, ...)


@dataclasses.dataclass(frozen=True)
class ImageRewardResult:
    """ImageRewardScore of one clip.

    Attributes:
        score: Mean of `sigmoid` rounded to 4 dp; None without a prompt.
        indices: The sampled frame indices (repeats when N < 5).
        raw: ImageReward's normalised reward of each sampled frame.
        sigmoid: 1 / (1 + exp(-raw)) of each.
    """

    score: Optional[float]
    indices: List[int]
    raw: List[float]
    sigmoid: List[float]


def frame_indices(num_frames: int, n_sample: int = N_SAMPLE) -> List[int]:
    """`int(i * (N - 1) / (n_sample - 1))` for i in 0..n_sample-1 (duplicates kept)."""
    if num_frames <= 0:
        raise ValueError(f"expected at least one frame, got {num_frames}")
    if n_sample < 2:
        raise ValueError(f"n_sample must be at least 2, got {n_sample}")
    return [int(i * (num_frames - 1) / (n_sample - 1)) for i in range(n_sample)]


def sigmoid(raw: float) -> float:
    """visual_quality.py's `float(1.0 / (1.0 + np.exp(-float(raw))))` (float64)."""
    return float(1.0 / (1.0 + np.exp(-float(raw))))


def has_prompt(prompt: Optional[str]) -> bool:
    """run_eval.py calls the metric only `if prompt`; the metric returns None unless
    `prompt.strip()` is non-empty."""
    return bool(prompt) and bool(prompt.strip())


def raw_rewards(reward: reward_model.ImageReward, prompt: str,
                frames_bgr: Sequence[np.ndarray]) -> List[float]:
    """ImageReward's normalised reward of each BGR frame for `prompt`.

    Each value is the float32 reward as a Python float, what `model.score(prompt,
    [pil])` returns for one image.
    """
    pixels = torch.stack([image_transform.open_clip_transform(
        image_transform.bgr_to_pil(frame), reward.image_size) for frame in frames_bgr])
    text = reward_model.tokenize(reward, prompt, len(frames_bgr))
    with torch.no_grad():
        rewards = reward.model(pixels.to(reward.device), text["input_ids"],
                               text["attention_mask"])
    return [float(value) for value in rewards.cpu().tolist()]


def image_reward_details(frames_bgr: Sequence[np.ndarray], prompt: Optional[str],
                         reward: reward_model.ImageReward,
                         n_sample: int = N_SAMPLE) -> ImageRewardResult:
    """ImageRewardScore with the sampled indices and per-frame values.

    Args:
        frames_bgr: The clip after the max-side resize, (N, H, W, 3) uint8 BGR.
        prompt: The clip's prompt; None or blank gives score None.
        reward: From reward_model.load_image_reward.
        n_sample: Frames sampled (the official runner: 5).
    """
    indices = frame_indices(len(frames_bgr), n_sample)
    if not has_prompt(prompt):
        return ImageRewardResult(None, indices, [], [])
    raw = raw_rewards(reward, prompt, [frames_bgr[i] for i in indices])
    sigmoids = [sigmoid(value) for value in raw]
    return ImageRewardResult(round(float(np.mean(sigmoids)), 4), indices, raw, sigmoids)


def image_reward_score(frames_bgr: Sequence[np.ndarray], prompt: Optional[str],
                       reward: reward_model.ImageReward) -> Optional[float]:
    """The ImageRewardScore (0-1, 4 dp) or None; see image_reward_details."""
    return image_reward_details(frames_bgr, prompt, reward).score
