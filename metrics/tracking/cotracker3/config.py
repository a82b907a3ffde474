"""Architecture settings of the CoTracker3 offline point tracker.

`OFFLINE_DEFAULT` is the official model that `scaled_offline.pth` holds: co-tracker's
`CoTrackerThreeOffline(stride=4, corr_radius=3, window_len=60)` with the base class's fixed
sizes (128-channel features, 4 correlation levels, a 384-wide update transformer with
3 time and 3 space blocks, 8 heads, 64 virtual tracks, 384x512 working resolution).
The other fields exist so that tests can build a tiny model through the same code.
"""

import dataclasses
from typing import Tuple

# Positional encoding of the relative motion: sin/cos at scales 2^0 .. 2^(N-1).
POSENC_DEGREES = 10
# Relative motion to the next and to the previous frame, (x, y) each.
MOTION_DIMS = 4


def check_tracker_sizes(cfg) -> None:
    """The size rules CoTracker2 and CoTracker3 configs share (ValueError if broken): the
    working resolution divides by the stride, the width by the heads, and the time blocks
    by the space blocks (one space step after every k-th time block)."""
    height, width = cfg.model_resolution
    if height % cfg.stride or width % cfg.stride:
        raise ValueError(f"model_resolution {cfg.model_resolution} is not a multiple of "
                         f"stride {cfg.stride}")
    if cfg.hidden_size % cfg.num_heads:
        raise ValueError(f"hidden_size {cfg.hidden_size} is not a multiple of num_heads "
                         f"{cfg.num_heads}")
    if cfg.space_depth < 1 or cfg.time_depth % cfg.space_depth:
        raise ValueError(f"time_depth {cfg.time_depth} must be a multiple of space_depth "
                         f"{cfg.space_depth} >= 1")


@dataclasses.dataclass(frozen=True)
class CoTracker3Config:
    """Sizes of one CoTracker3 offline model."""

    stride: int = 4  # feature maps are 1/stride of the working resolution
    corr_radius: int = 3  # correlation windows are (2r+1)^2 samples
    corr_levels: int = 4  # feature pyramid levels (each halves the map)
    window_len: int = 60  # frames of the stored time embedding
    model_resolution: Tuple[int, int] = (384, 512)  # (H, W) the video is resized to
    latent_dim: int = 128  # feature channels
    corr_hidden: int = 384  # correlation MLP hidden width
    corr_out: int = 256  # correlation embedding per level
    hidden_size: int = 384  # update transformer width
    num_heads: int = 8
    time_depth: int = 3
    space_depth: int = 3
    num_virtual_tracks: int = 64
    mlp_ratio: float = 4.0

    def __post_init__(self):
        check_tracker_sizes(self)
        if self.latent_dim % 4:
            raise ValueError(f"latent_dim {self.latent_dim} is not a multiple of 4")

    @property
    def window_size(self) -> int:
        """Samples per side of one correlation window."""
        return 2 * self.corr_radius + 1

    @property
    def posenc_dim(self) -> int:
        return MOTION_DIMS * (1 + 2 * POSENC_DEGREES)

    @property
    def input_dim(self) -> int:
        """Width of one transformer input token: visibility, confidence, correlations, motion."""
        return 2 + self.corr_levels * self.corr_out + self.posenc_dim


OFFLINE_DEFAULT = CoTracker3Config()

# Test-only size: same structure, a few channels; builds and runs in well under a second.
TINY = CoTracker3Config(corr_radius=2, corr_levels=2, window_len=8, model_resolution=(32, 48),
                        latent_dim=16, corr_hidden=24, corr_out=8, hidden_size=32, num_heads=2,
                        time_depth=2, space_depth=1, num_virtual_tracks=4)
