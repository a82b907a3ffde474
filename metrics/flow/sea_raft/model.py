"""The SEA-RAFT network in test mode (core/raft.py `RAFT.forward(test_mode=True)` and
core/utils/utils.py `InputPadder` @f41d0a7, described and written out here).

Forward on two (N, 3, H, W) RGB float images in [0, 255]:

1. `x -> 2 * (x / 255) - 1`.
2. Replicate padding to multiples of 8, split as evenly as possible with the extra
   pixel at the bottom/right (`InputPadder`'s default "sintel" mode).
3. Context encoder on the 6-channel pair, a 3x3 conv, split into hidden state and
   context (`dim` channels each). The flow head on the hidden state gives the initial
   1/8-resolution flow (its first two channels).
4. Feature encoder on each image separately; the correlation pyramid.
5. `iters` times: look the pyramid up at `grid + flow`, update the hidden state, add
   the flow head's first two channels to the flow.
6. The last flow is upsampled x8 by the convex combination of its 3x3 neighbourhoods
   (weights: softmax over the 9 of `0.25 * upsample_weight(hidden)`), values x8,
   and the padding removed. Only this last flow is returned: the official per-iteration
   list and the uncertainty channels (`info`) are not used downstream here.
"""

from typing import List, Sequence

import torch
from torch import nn
from torch.nn import functional as F

from metrics.flow.sea_raft import config as config_lib
from metrics.flow.sea_raft import corr as corr_lib
from metrics.flow.sea_raft import layers

SIZE_MULTIPLE = 8


def padding(height: int, width: int, multiple: int = SIZE_MULTIPLE) -> List[int]:
    """F.pad's [left, right, top, bottom] for `InputPadder(mode="sintel")`."""
    pad_h = (-height) % multiple
    pad_w = (-width) % multiple
    return [pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2]


def pad(images: torch.Tensor, pads: Sequence[int]) -> torch.Tensor:
    return F.pad(images, list(pads), mode="replicate")


def unpad(tensor: torch.Tensor, pads: Sequence[int]) -> torch.Tensor:
    height, width = tensor.shape[-2:]
    return tensor[..., pads[2]:height - pads[3], pads[0]:width - pads[1]]


def coords_grid(batch: int, height: int, width: int, device) -> torch.Tensor:
    """(batch, 2, height, width) float pixel coordinates, channel 0 = x, 1 = y."""
    ys, xs = torch.meshgrid(torch.arange(height, device=device),
                            torch.arange(width, device=device), indexing="ij")
    return torch.stack([xs, ys], dim=0).float()[None].repeat(batch, 1, 1, 1)


def convex_upsample(flow: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """(N, 2, h, w) flow, (N, 576, h, w) logits -> (N, 2, 8h, 8w) flow (values x8).

    Output pixel (8y + a, 8x + b) is sum_k softmax_k(weights[:, k*64 + a*8 + b, y, x]) *
    8 * flow at the k-th cell (row-major) of the zero-padded 3x3 neighbourhood of (y, x).
    """
    batch, channels, height, width = flow.shape
    mask = torch.softmax(weights.view(batch, 1, 9, 8, 8, height, width), dim=2)
    patches = F.unfold(8 * flow, [3, 3], padding=1).view(batch, channels, 9, 1, 1, height, width)
    up = torch.sum(mask * patches, dim=2).permute(0, 1, 4, 2, 5, 3)
    return up.reshape(batch, channels, 8 * height, 8 * width)


class SeaRaft(nn.Module):
    """SEA-RAFT with the official parameter names (a state dict of the official
    `RAFT` loads into it strictly)."""

    def __init__(self, config: config_lib.SeaRaftConfig = config_lib.SPRING_M):
        super().__init__()
        self.config = config
        dim = config.dim
        encoder = dict(initial_dim=config.initial_dim, block_dims=config.block_dims,
                       stage_blocks=config.stage_blocks)
        self.cnet = layers.ResNetFPN(input_dim=6, output_dim=2 * dim, **encoder)
        self.init_conv = layers.conv3x3(2 * dim, 2 * dim)
        self.upsample_weight = nn.Sequential(
            nn.Conv2d(dim, dim * 2, 3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(dim * 2, 64 * 9, 1, padding=0))
        self.flow_head = nn.Sequential(  # flow (2) + mixture weights (2) + log scales (2)
            nn.Conv2d(dim, 2 * dim, 3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(2 * dim, 6, 3, padding=1))
        self.fnet = layers.ResNetFPN(input_dim=3, output_dim=2 * dim, **encoder)
        self.update_block = layers.UpdateBlock(config.corr_channels, hdim=dim, cdim=dim,
                                               num_blocks=config.num_blocks)

    def forward(self, image1: torch.Tensor, image2: torch.Tensor,
                iters: int = None) -> torch.Tensor:
        """Two (N, 3, H, W) RGB [0, 255] float images -> (N, 2, H, W) flow 1 -> 2 (x, y)."""
        iters = self.config.iters if iters is None else iters
        image1 = (2 * (image1 / 255.0) - 1.0).contiguous()
        image2 = (2 * (image2 / 255.0) - 1.0).contiguous()
        pads = padding(*image1.shape[-2:])
        image1, image2 = pad(image1, pads), pad(image2, pads)
        dim = self.config.dim
        net, context = torch.split(self.init_conv(self.cnet(torch.cat([image1, image2], dim=1))),
                                   [dim, dim], dim=1)
        flow_8x = self.flow_head(net)[:, :2]
        pyramid = corr_lib.CorrPyramid(self.fnet(image1), self.fnet(image2), self.config.radius)
        weights = None
        for _ in range(iters):
            batch, _, height, width = flow_8x.shape
            coords = coords_grid(batch, height, width, image1.device) + flow_8x
            net = self.update_block(net, context, pyramid(coords), flow_8x)
            flow_8x = flow_8x + self.flow_head(net)[:, :2]
            weights = 0.25 * self.upsample_weight(net)
        if weights is None:
            raise ValueError("iters must be >= 1")
        return unpad(convex_upsample(flow_8x, weights), pads)
