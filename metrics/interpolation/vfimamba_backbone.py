"""VFIMamba's feature pyramid: convolutional stages, then Mamba stages, over both frames.

Official names (MCG-NJU/VFIMamba model/feature_extractor.py `MambaFeature`): stage i has
`block{i}` and, for i > 0, `patch_embed{i}` (a stride-2 3x3 convolution with PReLU in the
convolutional stages; LayerNorm then a stride-2 3x3 convolution in the Mamba stages).
"""

from typing import List, Sequence

import torch
from torch import nn

from metrics.interpolation import vfimamba_mamba


class ConvBlock(nn.Module):
    """`depth` 3x3 convolutions, each followed by a PReLU."""

    def __init__(self, in_dim: int, out_dim: int, depth: int):
        super().__init__()
        layers = []
        for i in range(depth):
            layers += [nn.Conv2d(in_dim if i == 0 else out_dim, out_dim, 3, 1, 1),
                       nn.PReLU(out_dim)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):  # pylint: disable=arguments-differ
        return self.conv(x)


class OverlapPatchEmbed(nn.Module):
    """LayerNorm over the input channels, then a 3x3 stride-2 convolution."""

    def __init__(self, in_chans: int, embed_dim: int):
        super().__init__()
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=3, stride=2, padding=1)
        self.norm = nn.LayerNorm(in_chans)

    def forward(self, x):  # pylint: disable=arguments-differ
        x = self.norm(x.permute(0, 2, 3, 1).contiguous()).permute(0, 3, 1, 2).contiguous()
        return self.proj(x)


class MambaFeature(nn.Module):
    """The pyramid; forward(frames0, frames1) gives one (2N, C_i, H/2^i, W/2^i) map per
    stage, the first frames in the first half of the batch."""

    def __init__(self, embed_dims: Sequence[int], depths: Sequence[int], conv_stages: int,
                 in_chans: int = 3):
        super().__init__()
        if len(embed_dims) != len(depths):
            raise ValueError(f"embed_dims {embed_dims} and depths {depths} differ in length")
        self.num_stages = len(embed_dims)
        for i, (dim, depth) in enumerate(zip(embed_dims, depths)):
            if i == 0:
                setattr(self, "block0", ConvBlock(in_chans, dim, depth))
                continue
            if i < conv_stages:
                embed = nn.Sequential(nn.Conv2d(embed_dims[i - 1], dim, 3, 2, 1), nn.PReLU(dim))
                block = ConvBlock(dim, dim, depth)
            else:
                embed = OverlapPatchEmbed(embed_dims[i - 1], dim)
                block = vfimamba_mamba.BiMambaBlock(dim, depth)
            setattr(self, f"patch_embed{i}", embed)
            setattr(self, f"block{i}", block)

    def forward(self, frames0, frames1) -> List[torch.Tensor]:  # pylint: disable=arguments-differ
        x = torch.cat([frames0, frames1], 0)
        features = []
        for i in range(self.num_stages):
            if i > 0:
                x = getattr(self, f"patch_embed{i}")(x)
            x = getattr(self, f"block{i}")(x)
            features.append(x)
        return features
