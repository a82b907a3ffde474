"""SEA-RAFT's building blocks, with the official parameter names (core/layer.py,
core/extractor.py, core/update.py @f41d0a7), written from a reading of that code.

* `BasicBlock`: two 3x3 conv + BatchNorm + ReLU, a residual; where the stride or width
  changes, a 1x1 conv + BatchNorm shortcut. The official block registers that
  BatchNorm twice (as `bn3` and as `downsample.1`), so its tensors appear under both
  names in the state dict; ours does the same so official files load strictly.
* `ResNetFPN`: 7x7 stride-2 stem + BN + ReLU, three stages of BasicBlocks (stride 1,
  2, 2: output at 1/8), a 1x1 output conv. The official constructor also copies
  torchvision's ImageNet ResNet weights in before the checkpoint is loaded over them;
  a checkpoint holds every tensor, so that initialisation never reaches a score.
* `ConvNextBlock`: 7x7 depthwise conv, LayerNorm over channels (eps 1e-6), Linear to
  4 x output width, exact GELU, Linear back, layer scale `gamma`, residual, then a 1x1
  conv to the output width (applied after the residual sum).
* `MotionEncoder` / `UpdateBlock`: correlation and flow features, then the refinement
  blocks over [hidden, context, motion].
"""

from typing import Sequence

import torch
from torch import nn
from torch.nn import functional as F


def conv1x1(in_planes: int, out_planes: int, stride: int = 1) -> nn.Conv2d:
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, padding=0)


def conv3x3(in_planes: int, out_planes: int, stride: int = 1) -> nn.Conv2d:
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=1)


class BasicBlock(nn.Module):

    def __init__(self, in_planes: int, planes: int, stride: int = 1):
        super().__init__()
        self.conv1 = conv3x3(in_planes, planes, stride)
        self.conv2 = conv3x3(planes, planes)
        self.bn1 = nn.BatchNorm2d(planes)
        self.bn2 = nn.BatchNorm2d(planes)
        if stride == 1 and in_planes == planes:
            self.downsample = None
        else:
            self.bn3 = nn.BatchNorm2d(planes)
            self.downsample = nn.Sequential(conv1x1(in_planes, planes, stride), self.bn3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.relu(self.bn1(self.conv1(x)))
        y = F.relu(self.bn2(self.conv2(y)))
        if self.downsample is not None:
            x = self.downsample(x)
        return F.relu(x + y)


class ResNetFPN(nn.Module):
    """The encoder: (N, input_dim, H, W) -> (N, output_dim, H/8, W/8)."""

    def __init__(self, input_dim: int, output_dim: int, initial_dim: int,
                 block_dims: Sequence[int], stage_blocks: Sequence[int]):
        super().__init__()
        self.conv1 = nn.Conv2d(input_dim, initial_dim, kernel_size=7, stride=2, padding=3)
        self.bn1 = nn.BatchNorm2d(initial_dim)
        in_planes = initial_dim
        for index, (width, count, stride) in enumerate(zip(block_dims, stage_blocks, (1, 2, 2))):
            blocks = [BasicBlock(in_planes, width, stride)]
            blocks += [BasicBlock(width, width, 1) for _ in range(count - 1)]
            setattr(self, f"layer{index + 1}", nn.Sequential(*blocks))
            in_planes = width
        self.final_conv = conv1x1(in_planes, output_dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.layer3(self.layer2(self.layer1(x)))
        return self.final_conv(x)


class ConvNextBlock(nn.Module):

    def __init__(self, dim: int, output_dim: int, layer_scale_init_value: float = 1e-6):
        super().__init__()
        self.dwconv = nn.Conv2d(dim, dim, kernel_size=7, padding=3, groups=dim)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.pwconv1 = nn.Linear(dim, 4 * output_dim)
        self.pwconv2 = nn.Linear(4 * output_dim, dim)
        self.gamma = nn.Parameter(layer_scale_init_value * torch.ones(dim))
        self.final = nn.Conv2d(dim, output_dim, kernel_size=1, padding=0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.dwconv(x).permute(0, 2, 3, 1)  # channels last for the norm and linears
        y = self.pwconv2(F.gelu(self.pwconv1(self.norm(y))))
        y = (self.gamma * y).permute(0, 3, 1, 2)
        return self.final(x + y)


class MotionEncoder(nn.Module):
    """[correlation features, flow] -> dim channels (the last two are the flow itself)."""

    def __init__(self, corr_channels: int, dim: int):
        super().__init__()
        self.convc1 = nn.Conv2d(corr_channels, dim * 2, 1, padding=0)
        self.convc2 = nn.Conv2d(dim * 2, dim + dim // 2, 3, padding=1)
        self.convf1 = nn.Conv2d(2, dim, 7, padding=3)
        self.convf2 = nn.Conv2d(dim, dim // 2, 3, padding=1)
        self.conv = nn.Conv2d(dim * 2, dim - 2, 3, padding=1)

    def forward(self, flow: torch.Tensor, corr: torch.Tensor) -> torch.Tensor:
        cor = F.relu(self.convc2(F.relu(self.convc1(corr))))
        flo = F.relu(self.convf2(F.relu(self.convf1(flow))))
        out = F.relu(self.conv(torch.cat([cor, flo], dim=1)))
        return torch.cat([out, flow], dim=1)


class UpdateBlock(nn.Module):
    """One flow update of the hidden state (official `BasicUpdateBlock`)."""

    def __init__(self, corr_channels: int, hdim: int, cdim: int, num_blocks: int):
        super().__init__()
        self.encoder = MotionEncoder(corr_channels, cdim)
        self.refine = nn.ModuleList(
            [ConvNextBlock(2 * cdim + hdim, hdim) for _ in range(num_blocks)])

    def forward(self, net: torch.Tensor, context: torch.Tensor, corr: torch.Tensor,
                flow: torch.Tensor) -> torch.Tensor:
        inp = torch.cat([context, self.encoder(flow, corr)], dim=1)
        for block in self.refine:
            net = block(torch.cat([net, inp], dim=1))
        return net
