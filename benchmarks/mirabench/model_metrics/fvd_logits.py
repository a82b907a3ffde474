"""The I3D embedding of one clip for MiraBench's FVD / KVD (spec §3.6; official
evaluation/fvd.py VideoDataset + get_logits with batch size 1).

Frames in numeric order; more than 100 are thinned to `linspace(0, N - 1, 100)
.astype(int)`. Each RGB frame as float 0..255 is resized alone to 224 x 224 (bilinear,
align_corners=False, no antialias), the clip becomes (1, 3, T, 224, 224), scaled by
`(video / 255) * 2 - 1`, and InceptionI3d(400) returns its time-averaged logits.
The resize, scaling and network are the generic metrics.i3d.clip_logits; MiraBench's
part is the numeric order and the 100-frame thinning. The set-level Frechet distance /
MMD over these vectors is the runner's.
"""

import numpy as np

from benchmarks.mirabench.model_metrics import clip_frames
from metrics.i3d import clip_logits
from metrics.i3d import inception_i3d

MAX_FRAMES = 100
SIZE = clip_logits.SIZE
MIN_FRAMES = clip_logits.MIN_FRAMES


def frame_indices(num_frames: int, limit: int = MAX_FRAMES) -> list:
    """All frames, or linspace(0, N - 1, limit).astype(int) of them when N > limit."""
    if num_frames > limit:
        return [int(i) for i in np.linspace(0, num_frames - 1, limit).astype(int)]
    return list(range(num_frames))


def compute(frames: np.ndarray, model: inception_i3d.InceptionI3d) -> np.ndarray:
    """The (400,) float32 logits of a clip (T >= 1 frames).

    Raises:
        ValueError: Bad frames, or fewer than MIN_FRAMES.
    """
    frames = clip_frames.checked(frames)
    return clip_logits.logits([frames[i] for i in frame_indices(len(frames))], model)
