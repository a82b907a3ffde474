"""The I3D embedding of one clip for MiraBench's FVD / KVD (spec §3.6; official
evaluation/fvd.py VideoDataset + get_logits with batch size 1).

Frames in numeric order; more than 100 are thinned to `linspace(0, N - 1, 100)
.astype(int)`. Each RGB frame as float 0..255 is resized alone to 224 x 224 (bilinear,
align_corners=False, no antialias), the clip becomes (1, 3, T, 224, 224), scaled by
`(video / 255) * 2 - 1`, and InceptionI3d(400) returns its time-averaged logits.
The set-level Frechet distance / MMD over these vectors is the runner's.
"""

import numpy as np
import torch
import torch.nn.functional as F

from benchmarks.mirabench.model_metrics import clip_frames
from metrics.i3d import inception_i3d

MAX_FRAMES = 100
SIZE = (224, 224)
# Conv3d_1a and MaxPool3d_4a/5a halve time (SAME padding): 9 frames leave the 2 steps
# the final AvgPool3d((2, 7, 7)) needs; fewer make the official forward raise.
MIN_FRAMES = 9


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
    if len(frames) < MIN_FRAMES:
        raise ValueError(f"I3D needs at least {MIN_FRAMES} frames, got {len(frames)} (its "
                         f"temporal pooling runs out of steps: the official forward raises)")
    device = next(model.parameters()).device
    resized = [F.interpolate(torch.from_numpy(np.ascontiguousarray(frames[i])).float()
                             .permute(2, 0, 1)[None], size=SIZE, mode="bilinear",
                             align_corners=False)
               for i in frame_indices(len(frames))]
    video = torch.cat(resized, dim=0).permute(1, 0, 2, 3)
    video = (video / 255) * 2. - 1.
    with torch.no_grad():
        return model(video[None].to(device))[0].cpu().numpy()
