"""The building blocks of AMT-S (MCG-NKU/AMT, networks/blocks/*): feature encoders, the
bidirectional correlation pyramid, the flow decoders and the correlation update.

Module and attribute names follow the official ones, so that `amt-s.pth` loads unchanged
(metrics/frame_interpolation/amt.py assembles them). Behaviour kept from upstream:

* Bilinear resizes are `F.interpolate(scale_factor=s, align_corners=False)` (the output
  size is floor(size * s) and the sampling uses s itself).
* Feature/image warps sample in normalised coordinates (`linspace(-1, 1)` grid plus the
  flow over (size - 1) / 2), bilinear, border padding, align_corners=True.
* Correlation lookups sample with zero padding, align_corners=True, on a (2r+1)^2 window
  whose FIRST window axis moves x and second moves y (the RAFT meshgrid order), levels
  built by 2x2 average pooling, volumes divided by sqrt(feature dim).
* The context encoder's norms are InstanceNorm2d without affine parameters (no keys).
"""

from typing import List, Sequence, Tuple

import torch
import torch.nn.functional as F
from torch import nn


def resize(x: torch.Tensor, scale_factor: float) -> torch.Tensor:
    """Bilinear resize by a factor, as every AMT block resizes."""
    return F.interpolate(x, scale_factor=scale_factor, mode="bilinear", align_corners=False)


def warp(image: torch.Tensor, flow: torch.Tensor) -> torch.Tensor:
    """Backward-warps `image` [B, C, H, W] by `flow` [B, 2, H, W] (pixels, x then y)."""
    batch, _, height, width = flow.shape
    xs = torch.linspace(-1.0, 1.0, width).view(1, 1, 1, width).expand(batch, -1, height, -1)
    ys = torch.linspace(-1.0, 1.0, height).view(1, 1, height, 1).expand(batch, -1, -1, width)
    base = torch.cat([xs, ys], 1).to(image)
    step = torch.cat([flow[:, 0:1] / ((width - 1.0) / 2.0),
                      flow[:, 1:2] / ((height - 1.0) / 2.0)], 1)
    grid = (base + step).permute(0, 2, 3, 1)
    return F.grid_sample(image, grid, mode="bilinear", padding_mode="border", align_corners=True)


def pixel_grid(batch: int, height: int, width: int, device) -> torch.Tensor:
    """[B, 2, H, W] float pixel coordinates, x in channel 0 and y in channel 1."""
    ys, xs = torch.meshgrid(torch.arange(height, device=device),
                            torch.arange(width, device=device), indexing="ij")
    return torch.stack([xs, ys], 0).float()[None].repeat(batch, 1, 1, 1)


def conv_prelu(cin: int, cout: int, kernel: int = 3, stride: int = 1,
               padding: int = 1) -> nn.Sequential:
    """Conv2d then a per-channel PReLU (keys `0.*`, `1.weight`)."""
    return nn.Sequential(nn.Conv2d(cin, cout, kernel, stride, padding), nn.PReLU(cout))


# ----------------------------------------------------------------- correlation encoder


class BottleneckBlock(nn.Module):
    """1x1 -> 3x3 (strided) -> 1x1 residual block with parameter-free instance norms."""

    def __init__(self, cin: int, cout: int, stride: int = 1):
        super().__init__()
        mid = cout // 4
        self.conv1 = nn.Conv2d(cin, mid, 1)
        self.conv2 = nn.Conv2d(mid, mid, 3, stride=stride, padding=1)
        self.conv3 = nn.Conv2d(mid, cout, 1)
        # Index 1 of the official Sequential is a parameter-free InstanceNorm2d.
        self.downsample = (None if stride == 1 else
                           nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride),
                                         nn.InstanceNorm2d(cout)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.relu(F.instance_norm(self.conv1(x)))
        y = F.relu(F.instance_norm(self.conv2(y)))
        y = F.relu(F.instance_norm(self.conv3(y)))
        shortcut = x if self.downsample is None else self.downsample(x)
        return F.relu(shortcut + y)


class SmallEncoder(nn.Module):
    """RAFT's small encoder (instance norm): [N, 3, H, W] -> [N, out_dim, H/8, W/8]."""

    def __init__(self, out_dim: int = 84):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, 7, stride=2, padding=3)
        widths, strides, previous = (32, 64, 96), (1, 2, 2), 32
        for index, (width, stride) in enumerate(zip(widths, strides), 1):
            self.add_module(f"layer{index}", nn.Sequential(
                BottleneckBlock(previous, width, stride), BottleneckBlock(width, width)))
            previous = width
        self.conv2 = nn.Conv2d(previous, out_dim, 1)

    def forward(self, images: Sequence[torch.Tensor]) -> Tuple[torch.Tensor, ...]:
        """Encodes the images as one batch; returns one map per image."""
        x = F.relu(F.instance_norm(self.conv1(torch.cat(list(images), 0))))
        x = self.conv2(self.layer3(self.layer2(self.layer1(x))))
        return torch.split(x, [i.shape[0] for i in images], 0)


class BidirCorrBlock:
    """All-pairs correlation of two maps, both directions, as a pyramid of `levels`."""

    def __init__(self, fmap0: torch.Tensor, fmap1: torch.Tensor, levels: int, radius: int):
        self.radius = radius
        batch, dim, height, width = fmap0.shape
        volume = torch.matmul(fmap0.view(batch, dim, -1).transpose(1, 2),
                              fmap1.view(batch, dim, -1))
        volume = volume.view(batch, height, width, 1, height, width)
        volume = volume / torch.sqrt(torch.tensor(dim).float())
        forward = volume.reshape(batch * height * width, 1, height, width)
        backward = volume.permute(0, 4, 5, 3, 1, 2).reshape(batch * height * width, 1,
                                                            height, width)
        self.pyramids = ([forward], [backward])
        for _ in range(levels - 1):
            for pyramid in self.pyramids:
                pyramid.append(F.avg_pool2d(pyramid[-1], 2, stride=2))

    def _window(self, device) -> torch.Tensor:
        offsets = torch.linspace(-self.radius, self.radius, 2 * self.radius + 1, device=device)
        first, second = torch.meshgrid(offsets, offsets, indexing="ij")
        return torch.stack([first, second], -1).view(1, 2 * self.radius + 1,
                                                     2 * self.radius + 1, 2)

    def __call__(self, coords0: torch.Tensor,
                 coords1: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        """Window lookups at coords0 (forward volume) and coords1 (backward volume)."""
        batch, _, height, width = coords0.shape
        window = self._window(coords0.device)
        outs = []
        for pyramid, coords in zip(self.pyramids, (coords0, coords1)):
            centres = coords.permute(0, 2, 3, 1).reshape(batch * height * width, 1, 1, 2)
            sampled = []
            for level, volume in enumerate(pyramid):
                points = centres / 2 ** level + window
                rows, cols = volume.shape[-2:]
                grid = torch.cat([2 * points[..., :1] / (cols - 1) - 1,
                                  2 * points[..., 1:] / (rows - 1) - 1], -1)
                values = F.grid_sample(volume, grid, align_corners=True)
                sampled.append(values.view(batch, height, width, -1))
            outs.append(torch.cat(sampled, -1).permute(0, 3, 1, 2).contiguous().float())
        return outs[0], outs[1]


class SmallUpdateBlock(nn.Module):
    """Residual update of (feature, bidirectional flow) from correlation and flow.

    With `scale_factor` s the feature enters at 1/s and the deltas leave resized by s
    (the flow delta also multiplied by s); the flow and correlation are at 1/8.
    """

    def __init__(self, cdim: int, scale_factor=None, levels: int = 4, radius: int = 3,
                 hidden: int = 76, flow_dim: int = 20, corr_dim: int = 64, fc_dim: int = 68):
        super().__init__()
        self.scale_factor = scale_factor
        planes = levels * (2 * radius + 1) ** 2
        self.convc1 = nn.Conv2d(2 * planes, corr_dim, 1)
        self.convf1 = nn.Conv2d(4, flow_dim * 2, 7, padding=3)
        self.convf2 = nn.Conv2d(flow_dim * 2, flow_dim, 3, padding=1)
        self.conv = nn.Conv2d(corr_dim + flow_dim, fc_dim, 3, padding=1)
        self.gru = self._pair(fc_dim + 4 + cdim, hidden, hidden)
        self.feat_head = self._pair(hidden, hidden, cdim)
        self.flow_head = self._pair(hidden, hidden, 4)

    @staticmethod
    def _pair(cin, mid, cout) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(cin, mid, 3, padding=1), nn.LeakyReLU(0.1),
                             nn.Conv2d(mid, cout, 3, padding=1))

    def forward(self, feature, flow, corr) -> Tuple[torch.Tensor, torch.Tensor]:
        scale = self.scale_factor
        if scale is not None:
            feature = resize(feature, 1 / scale)
        corr_code = F.leaky_relu(self.convc1(corr), 0.1)
        flow_code = F.leaky_relu(self.convf2(F.leaky_relu(self.convf1(flow), 0.1)), 0.1)
        motion = F.leaky_relu(self.conv(torch.cat([corr_code, flow_code], 1)), 0.1)
        hidden = self.gru(torch.cat([motion, flow, feature], 1))
        delta_feature, delta_flow = self.feat_head(hidden), self.flow_head(hidden)
        if scale is not None:
            delta_feature = resize(delta_feature, scale)
            delta_flow = scale * resize(delta_flow, scale)
        return delta_feature, delta_flow


# ------------------------------------------------------------------ IFRNet-style decoders


class ResBlock(nn.Module):
    """Residual 3x3 block whose last `side` channels get two extra convolutions."""

    def __init__(self, channels: int, side: int):
        super().__init__()
        self.side = side
        self.conv1 = conv_prelu(channels, channels)
        self.conv2 = conv_prelu(side, side)
        self.conv3 = conv_prelu(channels, channels)
        self.conv4 = conv_prelu(side, side)
        self.conv5 = nn.Conv2d(channels, channels, 3, 1, 1)
        self.prelu = nn.PReLU(channels)

    def _side(self, x: torch.Tensor, conv: nn.Module) -> torch.Tensor:
        return torch.cat([x[:, :-self.side], conv(x[:, -self.side:])], 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.conv3(self._side(self.conv1(x), self.conv2))
        out = self.conv5(self._side(out, self.conv4))
        return self.prelu(x + out)


class Encoder(nn.Module):
    """Image pyramid encoder: `pyramid{k}` halves the size; returns every level."""

    def __init__(self, channels: Sequence[int]):
        super().__init__()
        self.depth = len(channels)
        previous = 3
        for index, width in enumerate(channels, 1):
            self.add_module(f"pyramid{index}", nn.Sequential(
                conv_prelu(previous, width, 3, 2, 1), conv_prelu(width, width)))
            previous = width

    def forward(self, x: torch.Tensor) -> List[torch.Tensor]:
        levels = []
        for index in range(1, self.depth + 1):
            x = getattr(self, f"pyramid{index}")(x)
            levels.append(x)
        return levels


def _decoder_block(cin: int, width: int, side: int, cout: int) -> nn.Sequential:
    return nn.Sequential(conv_prelu(cin, width), ResBlock(width, side),
                         nn.ConvTranspose2d(width, cout, 4, 2, 1))


class InitDecoder(nn.Module):
    """Coarsest decoder: both 1/16 features and t -> flows t->0, t->1 and a feature at 1/8."""

    def __init__(self, cin: int, cout: int, side: int):
        super().__init__()
        self.convblock = _decoder_block(2 * cin + 1, 2 * cin, side, cout + 4)

    def forward(self, f0, f1, embt):
        time = embt.repeat(1, 1, *f0.shape[2:])
        out = self.convblock(torch.cat([f0, f1, time], 1))
        return out[:, 0:2], out[:, 2:4], out[:, 4:]


class IntermediateDecoder(nn.Module):
    """Refines (feature, flows) one level up from features warped by the current flows."""

    def __init__(self, cin: int, cout: int, side: int):
        super().__init__()
        self.convblock = _decoder_block(3 * cin + 4, 3 * cin, side, cout + 4)

    def forward(self, feature, f0, f1, flow0, flow1):
        out = self.convblock(torch.cat([feature, warp(f0, flow0), warp(f1, flow1),
                                        flow0, flow1], 1))
        return (out[:, 0:2] + 2.0 * resize(flow0, 2.0), out[:, 2:4] + 2.0 * resize(flow1, 2.0),
                out[:, 4:])


class MultiFlowDecoder(nn.Module):
    """Last decoder: `num_flows` flow pairs, blend masks (sigmoid) and image residuals."""

    def __init__(self, cin: int, side: int, num_flows: int):
        super().__init__()
        self.num_flows = num_flows
        self.convblock = _decoder_block(3 * cin + 4, 3 * cin, side, 8 * num_flows)

    def forward(self, feature, f0, f1, flow0, flow1):
        n = self.num_flows
        out = self.convblock(torch.cat([feature, warp(f0, flow0), warp(f1, flow1),
                                        flow0, flow1], 1))
        delta0, delta1, mask, residual = torch.split(out, [2 * n, 2 * n, n, 3 * n], 1)
        flow0 = delta0 + 2.0 * resize(flow0, 2.0).repeat(1, n, 1, 1)
        flow1 = delta1 + 2.0 * resize(flow1, 2.0).repeat(1, n, 1, 1)
        return flow0, flow1, torch.sigmoid(mask), residual
