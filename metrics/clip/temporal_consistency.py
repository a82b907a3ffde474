"""Temporal consistency of a clip in CLIP image-embedding space (the VBench-style
background consistency: metrics.temporal_consistency.consistency on CLIP embeddings).

Each given RGB frame (sizes may differ) goes through metrics.clip.vision (the CLIP
preprocess and `encode_image`, L2-normalised); the clip's value is
mean_{t>=1} (max(0, cos(f_{t-1}, f_t)) + max(0, cos(f_0, f_t))) / 2 on a 0-1 scale.
The tower's activation, which frames, any rescaling and rounding are the caller's.
"""

from typing import Sequence

import numpy as np

from metrics.clip import vision
from metrics.temporal_consistency import consistency


def frame_features(frames_rgb: Sequence[np.ndarray], tower: vision.ClipVision,
                   batch_size: int = vision.DEFAULT_BATCH_SIZE) -> np.ndarray:
    """The L2-normalised image embedding of each RGB frame, (N, embed_dim) float32 numpy.

    Raises:
        ValueError: See metrics.clip.vision.image_embeddings.
    """
    bgr = [f[:, :, ::-1] for f in frames_rgb]
    return vision.image_embeddings(tower, bgr, batch_size=batch_size).cpu().numpy()


def from_features(features: np.ndarray) -> float:
    """The consistency of (N >= 2, D) per-frame features (see the module docstring)."""
    return consistency.first_and_adjacent_consistency(features)


def score(frames_rgb: Sequence[np.ndarray], tower: vision.ClipVision,
          batch_size: int = vision.DEFAULT_BATCH_SIZE) -> float:
    """The consistency of a clip's frames (at least 2)."""
    return from_features(frame_features(frames_rgb, tower, batch_size))
