"""MiraBench `temporal_dino_consistency` of one clip (spec §3.1; official
evaluation/temporal_dino_consistency.py).

Every extracted frame (RGB) goes through the hub DINO transform (Resize(224) of the
shorter side, no crop, ToTensor, ImageNet normalisation) and torch.hub's `dino_vitb16`
(fp32; the model is never put in eval mode upstream, which changes nothing: no dropout
or drop-path at rate 0, no batch norm); the L2-normalised class tokens give
mean_{t>=1} (max(0, cos(f_{t-1}, f_t)) + max(0, cos(f_0, f_t))) / 2: the generic
metrics.dino.temporal_consistency; MiraBench's part is the frame choice (all of them) and
its raw 0-1 scale, unrounded.
"""

import numpy as np
from timm.models.vision_transformer import VisionTransformer

from benchmarks.mirabench.model_metrics import clip_frames
from metrics.dino import temporal_consistency
from metrics.dino import vit


def compute(frames: np.ndarray, model: VisionTransformer,
            batch_size: int = vit.DEFAULT_BATCH_SIZE) -> float:
    """The score of a clip.

    Args:
        frames: uint8 [T, H, W, 3] RGB, every frame of the clip (T >= 2).
        model: metrics.dino.vit.load_dino(<dino_vitbase16_pretrain.pth>, device).
        batch_size: Frames per model call (the official code runs one at a time).

    Raises:
        ValueError: Fewer than 2 frames or frames that are not uint8 RGB.
    """
    return from_frame_values(per_frame(list(checked(frames)), model, batch_size))


# The three parts of `compute`, for --sample_batch (frames of several clips of one size
# in shared model calls: every operation is per frame).
ONE_SIZE_PER_CALL = True  # frame_embeddings stacks frames without resizing them to one size


def checked(frames) -> np.ndarray:
    return clip_frames.checked(frames, min_frames=2)


def per_frame(frames, model: VisionTransformer, batch_size: int = vit.DEFAULT_BATCH_SIZE
              ) -> np.ndarray:
    """The L2-normalised class token of each RGB frame, (N, 768)."""
    return temporal_consistency.frame_features(frames, model, batch_size)


def from_frame_values(embeddings: np.ndarray) -> float:
    return temporal_consistency.from_features(embeddings)
