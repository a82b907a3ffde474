"""CoTracker3's per-frame feature network (co-tracker's BasicEncoder with instance norm).

A 7x7 stride-2 stem, four stages of two residual blocks (widths C/2, 3C/4, C, C; the last
three halve the resolution), every stage's output resized bilinearly (align_corners=True)
to 1/stride of the frame, concatenated, then a 3x3 and a 1x1 convolution to C channels.
All normalisation is InstanceNorm2d without affine parameters, so it has no state-dict
entries. Attribute names follow the official module so that checkpoint keys match.
"""

import torch
from torch import nn
import torch.nn.functional as F


class _Residual(nn.Module):
    """Two 3x3 conv + instance norm + ReLU, with a strided 1x1 projection when downsampling."""

    def __init__(self, in_channels: int, channels: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, channels, 3, stride=stride, padding=1)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)
        self.norm1 = nn.InstanceNorm2d(channels)
        self.norm2 = nn.InstanceNorm2d(channels)
        self.relu = nn.ReLU()
        self.downsample = None
        if stride != 1:
            self.downsample = nn.Sequential(
                nn.Conv2d(in_channels, channels, 1, stride=stride), nn.InstanceNorm2d(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.relu(self.norm1(self.conv1(x)))
        out = self.relu(self.norm2(self.conv2(out)))
        skip = x if self.downsample is None else self.downsample(x)
        return self.relu(skip + out)


def _stage(in_channels: int, channels: int, stride: int) -> nn.Sequential:
    return nn.Sequential(_Residual(in_channels, channels, stride), _Residual(channels, channels, 1))


class FeatureEncoder(nn.Module):
    """(N, 3, H, W) frames in [-1, 1] -> (N, C, H/stride, W/stride) features."""

    def __init__(self, channels: int, stride: int):
        super().__init__()
        self.stride = stride
        widths = (channels // 2, channels // 4 * 3, channels, channels)
        self.conv1 = nn.Conv2d(3, widths[0], 7, stride=2, padding=3)
        self.norm1 = nn.InstanceNorm2d(widths[0])
        self.relu1 = nn.ReLU()
        self.layer1 = _stage(widths[0], widths[0], 1)
        self.layer2 = _stage(widths[0], widths[1], 2)
        self.layer3 = _stage(widths[1], widths[2], 2)
        self.layer4 = _stage(widths[2], widths[3], 2)
        self.conv2 = nn.Conv2d(sum(widths), 2 * channels, 3, padding=1)
        self.norm2 = nn.InstanceNorm2d(2 * channels)
        self.relu2 = nn.ReLU()
        self.conv3 = nn.Conv2d(2 * channels, channels, 1)

    def forward(self, frames: torch.Tensor) -> torch.Tensor:
        size = (frames.shape[-2] // self.stride, frames.shape[-1] // self.stride)
        x = self.relu1(self.norm1(self.conv1(frames)))
        outputs = []
        for stage in (self.layer1, self.layer2, self.layer3, self.layer4):
            x = stage(x)
            outputs.append(x)
        resized = [F.interpolate(o, size, mode="bilinear", align_corners=True) for o in outputs]
        x = self.relu2(self.norm2(self.conv2(torch.cat(resized, dim=1))))
        return self.conv3(x)
