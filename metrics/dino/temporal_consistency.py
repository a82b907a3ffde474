"""Temporal consistency of a clip in DINO feature space (the VBench-style subject
consistency: metrics.temporal_consistency.consistency on DINO class tokens).

Each given frame (RGB uint8, all of one size) goes through the hub DINO transform and the
ViT (metrics.dino.vit.frame_embeddings: L2-normalised class tokens); the clip's value is
mean_{t>=1} (max(0, cos(f_{t-1}, f_t)) + max(0, cos(f_0, f_t))) / 2 on a 0-1 scale.
Which frames, any rescaling and rounding are the caller's.
"""

from typing import Sequence

import numpy as np
from timm.models.vision_transformer import VisionTransformer

from metrics.dino import vit
from metrics.temporal_consistency import consistency


def frame_features(frames_rgb: Sequence[np.ndarray], model: VisionTransformer,
                   batch_size: int = vit.DEFAULT_BATCH_SIZE) -> np.ndarray:
    """The L2-normalised class token of each RGB frame, (N, embed_dim) float32 numpy.

    Raises:
        ValueError: See metrics.dino.vit.frame_embeddings.
    """
    return vit.frame_embeddings(model, frames_rgb, batch_size=batch_size).cpu().numpy()


def from_features(features: np.ndarray) -> float:
    """The consistency of (N >= 2, D) per-frame features (see the module docstring)."""
    return consistency.first_and_adjacent_consistency(features)


def score(frames_rgb: Sequence[np.ndarray], model: VisionTransformer,
          batch_size: int = vit.DEFAULT_BATCH_SIZE) -> float:
    """The consistency of a clip's frames (at least 2)."""
    return from_features(frame_features(frames_rgb, model, batch_size))
