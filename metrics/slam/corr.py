"""DROID-SLAM's correlation volume and its pyramid lookup in PyTorch (`modules/corr.py` algorithm).

`all_pairs` is the dot product of every feature pair, both maps divided by 4 first (so by 16
in all, as the official code writes it; for DROID's 128-dim features that is not 1/sqrt(dim)).
`CorrBlock` keeps four levels, each the previous one average-pooled 2x2 over the target
dimensions, and looks up a `(2r+1)^2` window around each target coordinate (divided by
`2**level`) with bilinear weights; taps outside the target map contribute zero.

`lookup` follows the official CUDA lookup's layout: output `[n, 2r+1, 2r+1, h1, w1]` whose
first window index steps in x and second in y, flattened to `(2r+1)**2` channels.
"""

import torch
import torch.nn.functional as F

NUM_LEVELS = 4
RADIUS = 3


def all_pairs(fmap1, fmap2):
    """`[B, N, C, H, W]` x2 -> `[B, N, H, W, H, W]` correlation volume."""
    batch, num, dim, ht, wd = fmap1.shape
    f1 = fmap1.reshape(batch * num, dim, ht * wd) / 4.0
    f2 = fmap2.reshape(batch * num, dim, ht * wd) / 4.0
    return torch.matmul(f1.transpose(1, 2), f2).view(batch, num, ht, wd, ht, wd)


def lookup(volume, coords, radius):
    """Bilinear window lookup.

    Args:
      volume: `[n, h1, w1, h2, w2]` correlations.
      coords: `[n, 2, h1, w1]` target coordinates `(x, y)` in the `h2 x w2` map.
      radius: window radius r.
    Returns:
      `[n, 2r+1, 2r+1, h1, w1]`.
    """
    n, h1, w1, h2, w2 = volume.shape
    if coords.shape != (n, 2, h1, w1):
        raise ValueError(f"coords must be {(n, 2, h1, w1)}, got {tuple(coords.shape)}")
    rd = 2 * radius + 1
    x0, y0 = coords[:, 0], coords[:, 1]
    fx, fy = torch.floor(x0), torch.floor(y0)
    dx, dy = (x0 - fx)[..., None, None], (y0 - fy)[..., None, None]
    steps = torch.arange(-radius, radius + 2, device=coords.device)
    xs = fx.long()[..., None, None] + steps.view(rd + 1, 1)  # [n, h1, w1, rd+1 (x), 1]
    ys = fy.long()[..., None, None] + steps.view(1, rd + 1)  # [n, h1, w1, 1, rd+1 (y)]
    inside = (xs >= 0) & (xs < w2) & (ys >= 0) & (ys < h2)
    flat = (ys.clamp(0, h2 - 1) * w2 + xs.clamp(0, w2 - 1)).reshape(n, h1, w1, -1)
    taps = torch.gather(volume.reshape(n, h1, w1, h2 * w2), 3, flat).view(n, h1, w1, rd + 1, rd + 1)
    taps = taps * inside.to(volume.dtype)
    out = (
        taps[..., :-1, :-1] * ((1 - dx) * (1 - dy))
        + taps[..., 1:, :-1] * (dx * (1 - dy))
        + taps[..., :-1, 1:] * ((1 - dx) * dy)
        + taps[..., 1:, 1:] * (dx * dy)
    )
    return out.permute(0, 3, 4, 1, 2)


def _pairs(f1, f2):
    """`[M, C, H, W]` x `[M, C, H2, W2]` -> `[M, H, W, H2, W2]`, both divided by 4 like `all_pairs`."""
    m, c, h, w = f1.shape
    vol = torch.matmul((f1 / 4.0).reshape(m, c, h * w).transpose(1, 2), (f2 / 4.0).reshape(m, c, -1))
    return vol.view(m, h, w, f2.shape[-2], f2.shape[-1])


class CorrBlock:
    """The all-pairs volume of `fmap1`/`fmap2` (`[B, N, C, H, W]`) and its pooled pyramid."""

    def __init__(self, fmap1, fmap2, num_levels=NUM_LEVELS, radius=RADIUS):
        self.num_levels = num_levels
        self.radius = radius
        corr = all_pairs(fmap1, fmap2)
        batch, num, h1, w1, h2, w2 = corr.shape
        corr = corr.reshape(batch * num * h1 * w1, 1, h2, w2)
        self.pyramid = []
        for i in range(num_levels):
            self.pyramid.append(corr.view(batch * num, h1, w1, h2 // 2**i, w2 // 2**i))
            if i + 1 < num_levels:  # the official code also pools after the last level, unused
                corr = F.avg_pool2d(corr, 2, stride=2)

    def __call__(self, coords):
        """`coords [B, N, H, W, 2]` -> `[B, N, levels * (2r+1)^2, H, W]`."""
        batch, num, ht, wd, _ = coords.shape
        coords = coords.permute(0, 1, 4, 2, 3).reshape(batch * num, 2, ht, wd)
        out = [
            lookup(level, coords / 2**i, self.radius).reshape(batch, num, -1, ht, wd)
            for i, level in enumerate(self.pyramid)
        ]
        return torch.cat(out, dim=2)

    def __getitem__(self, index):
        """The block of the edges `index` selects (a mask or indices over the B*N edges)."""
        out = CorrBlock.__new__(CorrBlock)
        out.num_levels, out.radius = self.num_levels, self.radius
        out.pyramid = [level[index] for level in self.pyramid]
        return out

    def cat(self, other):
        """This block's edges followed by `other`'s (same levels and radius)."""
        out = CorrBlock.__new__(CorrBlock)
        out.num_levels, out.radius = self.num_levels, self.radius
        out.pyramid = [torch.cat([a, b], 0) for a, b in zip(self.pyramid, other.pyramid)]
        return out


class AltCorrBlock:
    """DROID's memory-light correlation: features pooled instead of the volume.

    Level i correlates frame `ii`'s full-resolution features with frame `jj`'s features
    average-pooled `i` times, at `coords / 2**i`; pooling is linear, so this equals
    `CorrBlock` on the same pair. Computed here per edge through `lookup` (the official CUDA
    kernel sums the taps directly; only the summation order differs).
    """

    def __init__(self, fmaps, num_levels=NUM_LEVELS, radius=RADIUS):
        self.num_levels = num_levels
        self.radius = radius
        batch, num, c, h, w = fmaps.shape
        fmaps = fmaps.reshape(batch * num, c, h, w)
        self.pyramid = []
        for i in range(num_levels):
            self.pyramid.append(fmaps.view(batch, num, c, h // 2**i, w // 2**i))
            if i + 1 < num_levels:
                fmaps = F.avg_pool2d(fmaps, 2, stride=2)

    def __call__(self, coords, ii, jj):
        """`coords [B, M, H, W, 2]` for edges `ii -> jj` -> `[B, M, levels * (2r+1)^2, H, W]`."""
        batch, m, ht, wd, _ = coords.shape
        c = coords.permute(0, 1, 4, 2, 3).reshape(batch * m, 2, ht, wd)
        f1 = self.pyramid[0][:, ii].reshape(batch * m, -1, ht, wd)
        out = []
        for i, level in enumerate(self.pyramid):
            f2 = level[:, jj].reshape((batch * m,) + level.shape[2:])
            out.append(lookup(_pairs(f1, f2), c / 2**i, self.radius).reshape(batch, m, -1, ht, wd))
        return torch.cat(out, dim=2)
