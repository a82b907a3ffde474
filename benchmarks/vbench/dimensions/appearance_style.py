"""VBench appearance_style of one video (spec §5.2, §9 quirk 4; upstream
vbench/appearance_style.py:42-74 at 45e79ec).

Upstream: the style is `info['auxiliary_info']['appearance_style']` (load_dimension_info
hands on the entry's auxiliary_info[dimension], e.g. {"appearance_style": "oil
painting"}), tokenized by `clip.tokenize([style])` with no template. Every decord frame
(`load_video(..., return_tensor=False)`: uint8) becomes a PIL image and goes through
`clip_transform_Image(224)` (PIL bicubic Resize of the shorter side, which always
antialiases whatever `antialias` says, CenterCrop(224), ToTensor, CLIP normalisation);
`clip_model(image, text)` one frame at a time; the frame value is
`float(logits_per_text[0][0]) / 100` (the cosine times exp(logit_scale) / 100, ~the
cosine). The per-video dict: video_results = np.mean(frame values), frame_results = the
list, cur_sim = the LAST frame's value (`:67-72`). The single-GPU aggregate is Σ frame
values / #frames over all videos (`:73`), so the row carries pooled = (Σ, T); the
distributed one is the mean of cur_sim (`:83`).

Here: benchmarks.vbench.dimensions.clip_image_text (see there for the model and what
differs: float32 instead of CUDA fp16); the PIL transform is
metrics.clip.image_transform.open_clip_transform, the same torchvision calls on the same
PIL image. Differences: the image tower sees `batch_size` frames per call (one upstream:
float rounding only); our frames are one OpenCV decode of the whole video (the pixels
decord gives for these codecs).
"""

import numpy as np
from PIL import Image
import torch

from benchmarks.vbench import dimension
from benchmarks.vbench.dimensions import clip_image_text
from benchmarks.vbench.dimensions import transforms
from metrics.clip import image_transform

KEY = "appearance_style"  # appearance_style.py:50
DEFAULT_BATCH_SIZE = 16


def style_of(video: dimension.Video) -> str:
    """The style text: video.auxiliary["appearance_style"].

    Raises:
        ValueError: No auxiliary info or no appearance_style in it (upstream raises).
    """
    style = (video.auxiliary or {}).get(KEY)
    if not isinstance(style, str):
        raise ValueError(f"{video.path}: no auxiliary_info {KEY!r} (got {video.auxiliary!r}); "
                         "appearance_style needs the entry's style text")
    return style


def frame_values(video: dimension.Video, model: clip_image_text.ClipImageText,
                 batch_size: int = DEFAULT_BATCH_SIZE) -> list:
    """float(logits_per_text) / 100 of every frame, in frame order (module doc)."""
    rgb = transforms.checked(video.rgb)
    text = clip_image_text.text_features(model, style_of(video))
    values = []
    for start in range(0, len(rgb), batch_size):
        pixels = torch.stack([image_transform.open_clip_transform(Image.fromarray(f))
                              for f in rgb[start:start + batch_size]])
        logits = clip_image_text.logits_per_text(
            model, clip_image_text.image_features(model, pixels), text)
        values.extend(float(logit) / 100 for logit in logits[0])
    return values


def compute(video: dimension.Video, model: clip_image_text.ClipImageText,
            batch_size: int = DEFAULT_BATCH_SIZE) -> dimension.Value:
    """The official per-video value, extras {frame_results, cur_sim} and pooled
    (Σ frame values, #frames).

    Args:
        video: Every frame of the video (T >= 1); video.auxiliary holds the style.
        model: clip_image_text.load_clip_image_text(<metrics.clip.frame_similarity
            .CLIP_VIT_B32 snapshot>, <metrics.viclip.pins.CLIP_BPE>, device), optionally
            sharing background_consistency's tower.
        batch_size: Frames per image-tower call.

    Raises:
        ValueError: Bad frames, no style, or a style longer than 77 tokens.
    """
    values = frame_values(video, model, batch_size)
    total = 0.0
    for v in values:
        total += v  # upstream's running sum, in frame order
    return dimension.Value(float(np.mean(values)),
                           {"frame_results": values, "cur_sim": values[-1]},
                           (total, float(len(values))))
