"""SEA-RAFT's all-pairs correlation pyramid and its windowed lookup (core/corr.py
`CorrBlock` @f41d0a7, described and written out here).

Pyramid: level 0 is `<f1(p), f2(q)> / sqrt(C)` for every pixel p of the first feature
map and q of the second; level l correlates the SAME first map with the second map
bilinearly halved l times (`F.interpolate(scale_factor=0.5, align_corners=False)`, not
average pooling as in RAFT). Each level is stored as (B*h1*w1, 1, h2_l, w2_l).

Lookup at coordinates c (pixels of level 0, x then y): per level l, the
(2r+1) x (2r+1) window at c / 2**l is sampled bilinearly (`grid_sample`,
align_corners=True, zeros outside). The official window is built with
`stack(meshgrid(dy, dx))` and added to (x, y), so the window's FIRST axis moves x and
its second moves y; window cell (i, j) is output channel
`l*(2r+1)^2 + i*(2r+1) + j`, value at (x + i - r, y + j - r) / 2**l. Kept as is:
the update block's weights were trained on that channel order.
"""

from typing import List

import torch
from torch.nn import functional as F

from metrics.flow.sea_raft import config as config_lib


def correlation(fmap1: torch.Tensor, fmap2: torch.Tensor) -> torch.Tensor:
    """(B, C, h1, w1) x (B, C, h2, w2) -> (B*h1*w1, 1, h2, w2), scaled by 1/sqrt(C)."""
    batch, dim, h1, w1 = fmap1.shape
    h2, w2 = fmap2.shape[2:]
    corr = fmap1.reshape(batch, dim, h1 * w1).transpose(1, 2) @ fmap2.reshape(batch, dim, h2 * w2)
    corr = corr.reshape(batch * h1 * w1, 1, h2, w2)
    return corr / torch.sqrt(torch.tensor(dim).float())


def bilinear_sampler(image: torch.Tensor, coords: torch.Tensor) -> torch.Tensor:
    """grid_sample at pixel coordinates (..., 2) = (x, y); align_corners, zero padding."""
    height, width = image.shape[-2:]
    xgrid, ygrid = coords.split([1, 1], dim=-1)
    grid = torch.cat([2 * xgrid / (width - 1) - 1, 2 * ygrid / (height - 1) - 1], dim=-1)
    return F.grid_sample(image, grid, align_corners=True)


class CorrPyramid:
    """The pyramid of `correlation` levels and the windowed lookup into it."""

    def __init__(self, fmap1: torch.Tensor, fmap2: torch.Tensor, radius: int,
                 num_levels: int = config_lib.CORR_LEVELS):
        h2, w2 = fmap2.shape[-2:]
        if min(h2, w2) >> (num_levels - 1) < 2:
            raise ValueError(
                f"feature maps of {h2}x{w2} are too small for {num_levels} correlation levels "
                f"(the coarsest needs >= 2 pixels per side, i.e. >= {2 ** num_levels} feature "
                f"pixels = {8 * 2 ** num_levels} network-input pixels; the official code "
                f"divides by zero there)")
        self.radius = radius
        self.levels: List[torch.Tensor] = []
        for _ in range(num_levels):
            self.levels.append(correlation(fmap1, fmap2))
            fmap2 = F.interpolate(fmap2, scale_factor=0.5, mode="bilinear", align_corners=False)

    def __call__(self, coords: torch.Tensor) -> torch.Tensor:
        """(B, 2, h1, w1) level-0 pixel coordinates -> (B, levels*(2r+1)^2, h1, w1) float32."""
        r = self.radius
        coords = coords.permute(0, 2, 3, 1)
        batch, h1, w1, _ = coords.shape
        steps = torch.linspace(-r, r, 2 * r + 1, device=coords.device)
        # delta[i, j] = (steps[i], steps[j]), added to (x, y): axis 0 moves x.
        delta = torch.stack(torch.meshgrid(steps, steps, indexing="ij"), dim=-1)
        delta = delta.view(1, 2 * r + 1, 2 * r + 1, 2)
        out = []
        for level, corr in enumerate(self.levels):
            centroid = coords.reshape(batch * h1 * w1, 1, 1, 2) / 2 ** level
            sampled = bilinear_sampler(corr, centroid + delta)
            out.append(sampled.view(batch, h1, w1, -1))
        return torch.cat(out, dim=-1).permute(0, 3, 1, 2).contiguous().float()
