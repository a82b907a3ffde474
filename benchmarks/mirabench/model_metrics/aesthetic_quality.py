"""MiraBench `aesthetic_quality` of one clip (spec §3.4; official evaluation/aesthetic_quality.py).

`clip.load("ViT-L/14")` with its preprocess (QuickGELU tower; bicubic Resize(224),
CenterCrop(224), CLIP normalisation), `encode_image` of each frame alone, L2-normalised,
then LAION-AI/aesthetic-predictor's v1 linear head nn.Linear(768, 1)
(sa_0_4_vit_l_14_linear.pth). The clip's value is the mean over ALL frames on the raw
LAION scale (about 1-10; not divided by 10). The tower, head and per-frame score are
metrics.clip.aesthetic's (the one LAION aesthetic loader); MiraBench's part is the
QuickGELU tower, the v1 linear head, all frames, the mean and the raw scale.

Known difference: on CUDA `clip.load` gives an fp16 tower and the official code casts the
head to it, so official GPU numbers carry fp16 rounding; here everything is float32 (the
official CPU path).
"""

import numpy as np

from benchmarks.mirabench.model_metrics import clip_frames
from metrics.clip import aesthetic
from metrics.clip import vision

ACTIVATION = "quick_gelu"


def compute(frames: np.ndarray, model: aesthetic.AestheticModel,
            batch_size: int = vision.DEFAULT_BATCH_SIZE) -> float:
    """The clip's mean aesthetic score.

    Args:
        frames: uint8 [T, H, W, 3] RGB, every frame (T >= 1).
        model: metrics.clip.aesthetic.load_aesthetic_linear(<openai/clip-vit-large-patch14>,
            <sa_0_4_vit_l_14_linear.pth>, device, activation=ACTIVATION).
        batch_size: Frames per tower call (one per call upstream: float rounding only).

    Raises:
        ValueError: Bad frames, or a tower not built with QuickGELU.
    """
    return from_frame_values(per_frame(list(checked(frames)), model, batch_size))


# The three parts of `compute`, for --sample_batch (frames of several clips, of any sizes,
# in shared model calls: each frame is preprocessed, embedded and scored alone).
ONE_SIZE_PER_CALL = False


def checked(frames) -> np.ndarray:
    return clip_frames.checked(frames)


def per_frame(frames, model: aesthetic.AestheticModel,
              batch_size: int = vision.DEFAULT_BATCH_SIZE) -> np.ndarray:
    """The LAION head's score of each RGB frame, (N,)."""
    if model.clip.activation != ACTIVATION:
        raise ValueError(f"clip.load's towers use {ACTIVATION}, this one {model.clip.activation}")
    return aesthetic.rgb_frame_scores(frames, model, batch_size)


def from_frame_values(scores: np.ndarray) -> float:
    return float(np.mean(scores))
