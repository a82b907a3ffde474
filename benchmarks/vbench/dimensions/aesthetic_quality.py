"""VBench aesthetic_quality of one video (spec §5.2, §9 quirks 2 and 8; upstream
vbench/aesthetic_quality.py:35-70 at 45e79ec).

Upstream: every decord frame as load_video's float32 tensor, in batches of 32:
`clip_transform(224)` (BICUBIC Resize of the shorter side on float values,
antialias=False, unclamped, CenterCrop(224), / 255, CLIP normalisation),
`clip.load("ViT-L/14").encode_image(...)` cast to float32, L2-normalised, then
LAION-AI/aesthetic-predictor's v1 head `nn.Linear(768, 1)` (sa_0_4_vit_l_14_linear.pth),
each score DIVIDED BY 10 (`:66`); video value = the mean over all frames (`:67`,
torch.mean of the float32 scores). Aggregate = mean over videos.

Here: metrics.clip.aesthetic's AestheticModel (the ViT-L/14 tower of transformers'
conversion, built with QuickGELU as the openai `clip` package builds it, and the linear
head). Differences: `clip.load` on CUDA keeps the tower in fp16 (the features are cast
to float32 before the head), so official GPU scores carry fp16 rounding; ours are
float32 throughout (the official CPU path). Our frames are one OpenCV decode of the
whole video (the pixels decord gives for these codecs).
"""

import torch
import torch.nn.functional as F

from benchmarks.vbench import dimension
from benchmarks.vbench.dimensions import transforms
from metrics.clip import aesthetic

ACTIVATION = "quick_gelu"
BATCH_SIZE = 32  # aesthetic_quality.py:20
SCALE = 10.0     # aesthetic_quality.py:66


def frame_scores(video: dimension.Video, model: aesthetic.AestheticModel,
                 batch_size: int = BATCH_SIZE) -> torch.Tensor:
    """The head's score of every frame ÷ 10, (T,) float32 on the CPU.

    Raises:
        ValueError: Bad frames, or a tower not built with QuickGELU.
    """
    if model.clip.activation != ACTIVATION:
        raise ValueError(f"clip.load's towers use {ACTIVATION}, this one {model.clip.activation}")
    rgb = transforms.checked(video.rgb)
    out = []
    for chunk in transforms.chunks(rgb, batch_size):
        pixels = transforms.clip_pixels(chunk, model.clip.image_size).to(model.clip.device)
        with torch.no_grad():
            feats = model.clip.model(pixel_values=pixels).image_embeds.to(torch.float32)
            feats = F.normalize(feats, dim=-1, p=2)
            scores = model.head(feats.to(next(model.head.parameters()).device)).squeeze(dim=-1)
        out.append(scores.float().cpu())
    return torch.cat(out) / SCALE


def compute(video: dimension.Video, model: aesthetic.AestheticModel,
            batch_size: int = BATCH_SIZE) -> dimension.Value:
    """The official per-video value (mean of the frame scores ÷ 10; no extras, not pooled).

    Args:
        video: Every frame of the video (T >= 1).
        model: metrics.clip.aesthetic.load_aesthetic_linear(<metrics.aesthetic.pins
            .CLIP_VIT_L14 snapshot>, <metrics.aesthetic.pins.LAION_AESTHETIC_LINEAR>,
            device, activation="quick_gelu").
        batch_size: Frames per tower call (32 upstream; another value: float rounding).

    Raises:
        ValueError: Bad frames, or a tower not built with QuickGELU.
    """
    scores = frame_scores(video, model, batch_size)
    return dimension.Value(torch.mean(scores, dim=0, keepdim=True).item())
