"""MiraBench `temporal_clip_consistency` of one clip (spec §3.1; official
evaluation/temporal_clip_consistency.py).

`clip.load("ViT-B/32")` (openai/CLIP: QuickGELU, its preprocess = bicubic Resize(224) of
the shorter side on the PIL image, CenterCrop(224), ToTensor, CLIP normalisation), all
frames' `encode_image` L2-normalised, then the same clamped adjacent/first-frame cosine
mean as the DINO variant. Here the tower is metrics.clip.vision with
activation="quick_gelu" on the transformers conversion of the same weights, in float32;
the formula is the generic metrics.clip.temporal_consistency, MiraBench's part the
QuickGELU tower, the frame choice (all of them) and the raw 0-1 scale, unrounded.

Known difference: on CUDA `clip.load` returns an fp16 model, so official GPU numbers
carry fp16 rounding (on CPU it is float32, as here).
"""

import numpy as np

from benchmarks.mirabench.model_metrics import clip_frames
from metrics.clip import temporal_consistency
from metrics.clip import vision

ACTIVATION = "quick_gelu"


def compute(frames: np.ndarray, model: vision.ClipVision,
            batch_size: int = vision.DEFAULT_BATCH_SIZE) -> float:
    """The score of a clip.

    Args:
        frames: uint8 [T, H, W, 3] RGB, every frame of the clip (T >= 2).
        model: metrics.clip.vision.load_clip_vision(<openai/clip-vit-base-patch32>,
            device, activation=ACTIVATION).
        batch_size: Frames per model call (the official code embeds all in one batch).

    Raises:
        ValueError: Fewer than 2 frames, frames that are not uint8 RGB, or a tower not
            built with QuickGELU.
    """
    return from_frame_values(per_frame(list(checked(frames)), model, batch_size))


# The three parts of `compute`, for --sample_batch (frames of several clips, of any sizes,
# in shared model calls: each frame is preprocessed and embedded alone).
ONE_SIZE_PER_CALL = False


def checked(frames) -> np.ndarray:
    return clip_frames.checked(frames, min_frames=2)


def per_frame(frames, model: vision.ClipVision, batch_size: int = vision.DEFAULT_BATCH_SIZE
              ) -> np.ndarray:
    """The L2-normalised image embedding of each RGB frame, (N, 512)."""
    if model.activation != ACTIVATION:
        raise ValueError(f"clip.load's towers use {ACTIVATION}, this one {model.activation}")
    return temporal_consistency.frame_features(frames, model, batch_size)


def from_frame_values(embeddings: np.ndarray) -> float:
    return temporal_consistency.from_features(embeddings)
