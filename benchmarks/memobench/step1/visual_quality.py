"""MemoBench's per-clip reductions of frame scores (spec §4.5-§4.6), as the official
`evaluation/automated/metrics/visual_quality.py` computes them on the 640-max-side
frames that run_eval.py hands it.

* AestheticScore: the LAION predictor's score (metrics.clip.aesthetic) of frames
  iter_indices(0, N-1, sample_step), run_eval passes 4; `round(float(np.mean(s)), 4)`,
  0.0 when no frame is sampled.
* ImageQuality: CLIP-IQA+ (metrics.clip.clipiqa) of the same frames, each
  `float(metric(t).item())` clipped to [0, 1] before the mean; rounded to 4 dp, 0.0 when
  none (its percent column is eval_csv's).
* ImageRewardScore (`image_reward_score`, n_sample=5): frames `int(i * (N-1) / 4)`,
  i = 0..4 (repeats kept), ImageReward's reward of each (metrics.imagereward.scoring),
  `float(1 / (1 + np.exp(-float(raw))))`, the mean rounded to 4 dp; None unless
  `prompt.strip()` is non-empty. Upstream skips a frame whose model call raises; here a
  failing call fails the clip (the sample loop records why).
"""

import dataclasses
from typing import List, Optional, Sequence

import numpy as np


DECIMALS = 4
IMAGE_REWARD_SAMPLES = 5  # run_eval.py: image_reward_score(gen, prompt, n_sample=5, ...)


@dataclasses.dataclass(frozen=True)
class ClipScore:
    """A clip's value and the frame scores it came from.

    Attributes:
        score: The clip's value (None: not computed, e.g. no prompt).
        indices: The sampled frame indices.
        frame_scores: The model's raw output per sampled frame.
    """

    score: Optional[float]
    indices: List[int]
    frame_scores: List[float]


def clip_mean(frame_scores: Sequence[float], clip_to_unit: bool = False) -> float:
    """`round(float(np.mean(values)), 4)` (each clipped to [0, 1] first when asked);
    0.0 when there is no value."""
    values = [float(np.clip(v, 0.0, 1.0)) if clip_to_unit else float(v) for v in frame_scores]
    return round(float(np.mean(values)), DECIMALS) if values else 0.0


def aesthetic_score(frames_bgr, sample_step: int, model, device,
                    batch_size: Optional[int] = None) -> ClipScore:
    """AestheticScore of a clip (~0-10, 4 dp)."""
    from metrics.clip import aesthetic  # pylint: disable=import-outside-toplevel  (torch)
    kwargs = {} if batch_size is None else {"batch_size": batch_size}
    sampled = aesthetic.strided_frame_scores(frames_bgr, sample_step, model, device, **kwargs)
    return ClipScore(clip_mean(sampled.scores), sampled.indices, sampled.scores)


def image_quality(frames_bgr, sample_step: int, model,
                  batch_size: Optional[int] = None) -> ClipScore:
    """ImageQuality (CLIP-IQA+) of a clip (0-1, 4 dp); frame_scores before clipping."""
    from metrics.clip import clipiqa  # pylint: disable=import-outside-toplevel  (torch)
    kwargs = {} if batch_size is None else {"batch_size": batch_size}
    sampled = clipiqa.strided_frame_scores(frames_bgr, sample_step, model, **kwargs)
    return ClipScore(clip_mean(sampled.scores, clip_to_unit=True), sampled.indices,
                     sampled.scores)


def image_reward_indices(num_frames: int, n_sample: int = IMAGE_REWARD_SAMPLES) -> List[int]:
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
    `prompt.strip()` is non-empty (so the text "nan" of an empty xlsx cell is a prompt)."""
    return bool(prompt) and bool(prompt.strip())


def image_reward(frames_bgr, prompt: Optional[str], reward,
                 n_sample: int = IMAGE_REWARD_SAMPLES, embeds=None) -> ClipScore:
    """ImageRewardScore (0-1, 4 dp; None without a prompt); frame_scores are the raw
    rewards, before the sigmoid. `embeds`: the sampled frames' image-tower rows when a
    shared call computed them (scoring.image_embeds)."""
    indices = image_reward_indices(len(frames_bgr), n_sample)
    if not has_prompt(prompt):
        return ClipScore(None, indices, [])
    from metrics.imagereward import scoring  # pylint: disable=import-outside-toplevel  (torch)
    raw = scoring.raw_rewards(reward, prompt, [frames_bgr[i] for i in indices], embeds)
    return ClipScore(clip_mean([sigmoid(value) for value in raw]), indices, raw)
