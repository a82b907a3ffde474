"""VBench background_consistency of one video (spec §5.2, §9 quirks 2-3; upstream
vbench/background_consistency.py:23-65 at 45e79ec).

Upstream: every decord frame as load_video's float32 tensor, `clip_transform(224)`
(BICUBIC Resize of the shorter side on float values, antialias=False and UNCLAMPED,
CenterCrop(224), / 255, CLIP normalisation; utils.py:33-39), all frames in ONE
`encode_image` call of `clip.load("ViT-B/32")`, L2-normalised; the clamped pair sum of
benchmarks.vbench.dimensions.consistency; video value = sum / (T - 1), plus the keys
`video_sim` (the sum) and `cnt_per_video` (T - 1) in the per-video dict (`:58-62`),
which both aggregates pool (`:64`, `:76-78`).

Here: the tower is metrics.clip.vision (transformers' conversion of the same OpenAI
weights) built with QuickGELU, as the openai `clip` package always builds it.
Differences: `clip.load` on CUDA keeps the model in fp16, so official GPU features carry
fp16 rounding; ours are float32 (the official CPU path). `batch_size` None is upstream's
one call for all frames; another value changes float rounding only. Our frames are one
OpenCV decode of the whole video (the pixels decord gives for these codecs). The
`--read_frame` path (clip.load's PIL preprocess of frame files) is not reproduced.
"""

from typing import Optional

import torch
import torch.nn.functional as F

from benchmarks.vbench import dimension
from benchmarks.vbench.dimensions import consistency
from benchmarks.vbench.dimensions import transforms
from metrics.clip import vision

ACTIVATION = "quick_gelu"


def image_features(rgb, tower: vision.ClipVision, batch_size: Optional[int]) -> torch.Tensor:
    """encode_image(clip_transform(frames)), L2-normalised, (T, D) float32 on the CPU.

    Raises:
        ValueError: A tower not built with QuickGELU.
    """
    if tower.activation != ACTIVATION:
        raise ValueError(f"clip.load's towers use {ACTIVATION}, this one {tower.activation}")
    out = []
    for chunk in transforms.chunks(rgb, batch_size):
        pixels = transforms.clip_pixels(chunk, tower.image_size).to(tower.device)
        with torch.no_grad():
            embeds = tower.model(pixel_values=pixels).image_embeds
        out.append(F.normalize(embeds, dim=-1, p=2).float().cpu())
    return torch.cat(out)


def compute(video: dimension.Video, tower: vision.ClipVision,
            batch_size: Optional[int] = None) -> dimension.Value:
    """The official per-video value, extras {video_sim, cnt_per_video} and pooled
    (video_sim, cnt_per_video).

    Args:
        video: Every frame of the video (T >= 2).
        tower: metrics.clip.vision.load_clip_vision(<metrics.clip.frame_similarity
            .CLIP_VIT_B32 snapshot>, device, activation="quick_gelu").
        batch_size: Frames per tower call; None: all at once, as upstream.

    Raises:
        ValueError: Fewer than 2 frames (upstream divides by zero), bad frames, or a
            tower without QuickGELU.
    """
    rgb = transforms.checked(video.rgb, min_frames=2)
    return consistency.value(image_features(rgb, tower, batch_size), with_extras=True)
