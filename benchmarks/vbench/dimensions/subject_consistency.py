"""VBench subject_consistency of one video (spec §5.2, §9 quirks 2-3; upstream
vbench/subject_consistency.py:30-69 at 45e79ec).

Upstream: every decord frame as load_video's float32 tensor, `dino_transform(224)`
(bilinear Resize of the shorter side to 224 on float values, antialias=False, NO crop,
/ 255, ImageNet normalisation; utils.py:49-54), then torch.hub's DINO ViT-B/16 one frame
at a time (fp32), each class token L2-normalised; the clamped pair sum of
benchmarks.vbench.dimensions.consistency; video value = sum / (T - 1). The single-GPU
aggregate is Σ sums / Σ pairs (`:68`), so the row carries pooled = (sum, T - 1).

Here: the model is metrics.dino.vit (timm modules holding the official state dict; the
hub model's position-table resampling for the non-square 224 x W grid written out), fp32
like upstream. Differences: frames go through the network `batch_size` at a time (one
per call upstream: float rounding only); our frames are one OpenCV decode of the whole
video, the pixels decord gives for these codecs (//tools/calibration:decode_parity_test).
The `--read_frame` path (PIL frames from a folder) is not reproduced.
"""

import torch
import torch.nn.functional as F
from timm.models.vision_transformer import VisionTransformer

from benchmarks.vbench import dimension
from benchmarks.vbench.dimensions import consistency
from benchmarks.vbench.dimensions import transforms
from metrics.dino import vit

DEFAULT_BATCH_SIZE = vit.DEFAULT_BATCH_SIZE


def frame_features(video: dimension.Video, model: VisionTransformer,
                   batch_size: int = DEFAULT_BATCH_SIZE) -> torch.Tensor:
    """The L2-normalised DINO class token of every frame, (T, 768) float32 on the CPU."""
    rgb = transforms.checked(video.rgb, min_frames=2)
    device = model.cls_token.device
    out = []
    for chunk in transforms.chunks(rgb, batch_size):
        pixels = transforms.dino_pixels(chunk).to(device)
        with torch.no_grad():
            out.append(F.normalize(vit.class_token(model, pixels), dim=-1, p=2).float().cpu())
    return torch.cat(out)


def compute(video: dimension.Video, model: VisionTransformer,
            batch_size: int = DEFAULT_BATCH_SIZE) -> dimension.Value:
    """The official per-video value and pooled (Σ pair values, T - 1).

    Args:
        video: Every frame of the video (T >= 2).
        model: metrics.dino.vit.load_dino(<metrics.dino.pins.DINO_VITB16>, device).
        batch_size: Frames per network call.

    Raises:
        ValueError: Fewer than 2 frames (upstream divides by zero) or bad frames.
    """
    return consistency.value(frame_features(video, model, batch_size), with_extras=False)
