"""Architecture settings of the CoTracker2 online point tracker.

`ONLINE_DEFAULT` is the model `cotracker2.pth` holds: co-tracker's
`CoTracker2(stride=4, window_len=8)` (what torch.hub's `cotracker2_online` builds), with
its fixed sizes: 128-channel features, 4 correlation levels of radius 3, a 64-wide flow
encoding, a 384-wide update transformer of 6 time and 6 space blocks, 8 heads, 64
virtual tracks, 384x512 working resolution. Other values exist for tiny test models.
"""

import dataclasses
from typing import Tuple

from metrics.tracking.cotracker3 import config as cotracker3_config


@dataclasses.dataclass(frozen=True)
class CoTracker2Config:
    """Sizes of one CoTracker2 model."""

    stride: int = 4  # feature maps are 1/stride of the working resolution
    corr_radius: int = 3  # correlation windows are (2r+1)^2 samples
    corr_levels: int = 4  # correlation pyramid levels (each halves the map)
    window_len: int = 8  # frames per sliding window (the online step is half of it)
    model_resolution: Tuple[int, int] = (384, 512)  # (H, W) the video is resized to
    latent_dim: int = 128  # feature channels (also the track feature width)
    flow_channels: int = 64  # sin/cos channels per axis of the flow encoding
    hidden_size: int = 384  # update transformer width
    num_heads: int = 8
    time_depth: int = 6
    space_depth: int = 6
    num_virtual_tracks: int = 64
    mlp_ratio: float = 4.0

    def __post_init__(self):
        cotracker3_config.check_tracker_sizes(self)
        if self.latent_dim % 4 or self.input_dim % 4 or self.flow_channels % 2:
            raise ValueError("latent_dim and input_dim must be multiples of 4, flow_channels "
                             "even")
        if self.window_len < 2:
            raise ValueError(f"window_len {self.window_len} < 2")

    @property
    def step(self) -> int:
        return self.window_len // 2

    @property
    def feature_size(self) -> Tuple[int, int]:
        return (self.model_resolution[0] // self.stride, self.model_resolution[1] // self.stride)

    @property
    def input_dim(self) -> int:
        """Token width: flow encoding, correlations, track feature, track mask and visibility."""
        flow = 2 + 2 * self.flow_channels
        corr = self.corr_levels * (2 * self.corr_radius + 1) ** 2
        return flow + corr + self.latent_dim + 2


ONLINE_DEFAULT = CoTracker2Config()

# Test-only size: same structure, a few channels; a window runs in milliseconds.
TINY = CoTracker2Config(corr_radius=1, corr_levels=4, model_resolution=(32, 48), latent_dim=16,
                        flow_channels=8, hidden_size=32, num_heads=2, time_depth=2,
                        space_depth=1, num_virtual_tracks=4)
