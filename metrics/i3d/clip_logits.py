"""The I3D embedding of one clip for FVD / KVD (pytorch-i3d's InceptionI3d(400) as the
common FVD evaluation scripts drive it).

Each given RGB frame as float 0..255 is resized alone to 224 x 224 (bilinear,
align_corners=False, no antialias), the clip becomes (1, 3, T, 224, 224), scaled by
`(video / 255) * 2 - 1`, and the network returns its time-averaged logits. Which frames
(e.g. a cap on their number) and the set-level distance are the caller's.
"""

from typing import Sequence

import numpy as np
import torch
import torch.nn.functional as F

from metrics.i3d import inception_i3d

SIZE = (224, 224)
# Conv3d_1a and MaxPool3d_4a/5a halve time (SAME padding): 9 frames leave the 2 steps
# the final AvgPool3d((2, 7, 7)) needs; fewer make the forward raise.
MIN_FRAMES = 9


def logits(frames_rgb: Sequence[np.ndarray], model: inception_i3d.InceptionI3d) -> np.ndarray:
    """The (num_classes,) float32 time-averaged logits of uint8 (H, W, 3) RGB frames.

    Raises:
        ValueError: Fewer than MIN_FRAMES frames.
    """
    if len(frames_rgb) < MIN_FRAMES:
        raise ValueError(f"I3D needs at least {MIN_FRAMES} frames, got {len(frames_rgb)} (its "
                         f"temporal pooling runs out of steps: the official forward raises)")
    device = next(model.parameters()).device
    resized = [F.interpolate(torch.from_numpy(np.ascontiguousarray(frame)).float()
                             .permute(2, 0, 1)[None], size=SIZE, mode="bilinear",
                             align_corners=False)
               for frame in frames_rgb]
    video = torch.cat(resized, dim=0).permute(1, 0, 2, 3)
    video = (video / 255) * 2. - 1.
    with torch.no_grad():
        return model(video[None].to(device))[0].cpu().numpy()
