"""CSPNeXt backbone and CSPNeXt-PAFPN neck (RTMDet / RTMPose), in torch, with the
OpenMMLab module and parameter names so that their checkpoints load unchanged.

Written from reading mmpose 1.3 (open-mmlab/mmpose:
mmpose/mmpose/models/backbones/cspnext.py, models/utils/csp_layer.py,
models/necks/cspnext_pafpn.py, models/backbones/csp_darknet.py SPPBottleneck) and mmcv's
ConvModule / DepthwiseSeparableConvModule layout (conv -> bn -> act; `conv`, `bn`;
`depthwise_conv`, `pointwise_conv`). Inference only: BatchNorm in eval mode, no init.

Both official configs use norm SyncBN (eps 1e-5 at inference) and SiLU.
"""

import dataclasses
from typing import List, Sequence, Tuple

import torch
from torch import nn

# P5: (in, out, blocks, add_identity, use_spp) per stage, before widen/deepen.
P5 = ((64, 128, 3, True, False), (128, 256, 6, True, False),
      (256, 512, 6, True, False), (512, 1024, 3, False, True))
BN_EPS = 1e-5


class ConvModule(nn.Module):
    """Conv (no bias) -> BatchNorm -> SiLU, named as mmcv's ConvModule."""

    def __init__(self, cin: int, cout: int, kernel: int, stride: int = 1,
                 padding: int = 0, groups: int = 1):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, kernel, stride, padding, groups=groups, bias=False)
        self.bn = nn.BatchNorm2d(cout, eps=BN_EPS)
        self.activate = nn.SiLU()

    def forward(self, x):
        return self.activate(self.bn(self.conv(x)))


class DepthwiseSeparableConvModule(nn.Module):
    def __init__(self, cin: int, cout: int, kernel: int, stride: int = 1, padding: int = 0):
        super().__init__()
        self.depthwise_conv = ConvModule(cin, cin, kernel, stride, padding, groups=cin)
        self.pointwise_conv = ConvModule(cin, cout, 1)

    def forward(self, x):
        return self.pointwise_conv(self.depthwise_conv(x))


class ChannelAttention(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.global_avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Conv2d(channels, channels, 1, 1, 0, bias=True)
        self.act = nn.Hardsigmoid()

    def forward(self, x):
        return x * self.act(self.fc(self.global_avgpool(x)))


class CSPNeXtBlock(nn.Module):
    """3x3 conv, then a 5x5 depthwise-separable conv; identity added when asked and the
    channel counts agree."""

    def __init__(self, cin: int, cout: int, add_identity: bool, kernel: int = 5):
        super().__init__()
        hidden = int(cout * 1.0)  # CSPLayer passes expansion 1.0
        self.conv1 = ConvModule(cin, hidden, 3, 1, 1)
        self.conv2 = DepthwiseSeparableConvModule(hidden, cout, kernel, 1, kernel // 2)
        self.add_identity = add_identity and cin == cout

    def forward(self, x):
        out = self.conv2(self.conv1(x))
        return out + x if self.add_identity else out


class CSPLayer(nn.Module):
    def __init__(self, cin: int, cout: int, expand_ratio: float, num_blocks: int,
                 add_identity: bool, channel_attention: bool):
        super().__init__()
        mid = int(cout * expand_ratio)
        self.channel_attention = channel_attention
        self.main_conv = ConvModule(cin, mid, 1)
        self.short_conv = ConvModule(cin, mid, 1)
        self.final_conv = ConvModule(2 * mid, cout, 1)
        self.blocks = nn.Sequential(*[CSPNeXtBlock(mid, mid, add_identity)
                                      for _ in range(num_blocks)])
        if channel_attention:
            self.attention = ChannelAttention(2 * mid)

    def forward(self, x):
        out = torch.cat((self.blocks(self.main_conv(x)), self.short_conv(x)), dim=1)
        if self.channel_attention:
            out = self.attention(out)
        return self.final_conv(out)


class SPPBottleneck(nn.Module):
    def __init__(self, cin: int, cout: int, kernel_sizes=(5, 9, 13)):
        super().__init__()
        mid = cin // 2
        self.conv1 = ConvModule(cin, mid, 1)
        self.poolings = nn.ModuleList([nn.MaxPool2d(k, 1, k // 2) for k in kernel_sizes])
        self.conv2 = ConvModule(mid * (len(kernel_sizes) + 1), cout, 1)

    def forward(self, x):
        x = self.conv1(x)
        return self.conv2(torch.cat([x] + [pool(x) for pool in self.poolings], dim=1))


@dataclasses.dataclass(frozen=True)
class CSPNeXtConfig:
    deepen_factor: float = 0.67   # "-m"
    widen_factor: float = 0.75
    expand_ratio: float = 0.5
    out_indices: Tuple[int, ...] = (2, 3, 4)
    channel_attention: bool = True

    def stage_channels(self) -> List[int]:
        """Output channels of stem, stage1..stage4."""
        w = self.widen_factor
        return [int(P5[0][0] * w)] + [int(s[1] * w) for s in P5]


class CSPNeXt(nn.Module):
    def __init__(self, config: CSPNeXtConfig):
        super().__init__()
        w, c = config.widen_factor, config
        stem = int(P5[0][0] * w)
        self.stem = nn.Sequential(ConvModule(3, int(P5[0][0] * w // 2), 3, 2, 1),
                                  ConvModule(int(P5[0][0] * w // 2), int(P5[0][0] * w // 2),
                                             3, 1, 1),
                                  ConvModule(int(P5[0][0] * w // 2), stem, 3, 1, 1))
        self.out_indices = c.out_indices
        for i, (cin, cout, blocks, add_identity, use_spp) in enumerate(P5):
            cin, cout = int(cin * w), int(cout * w)
            blocks = max(round(blocks * c.deepen_factor), 1)
            stage = [ConvModule(cin, cout, 3, 2, 1)]
            if use_spp:
                stage.append(SPPBottleneck(cout, cout))
            stage.append(CSPLayer(cout, cout, c.expand_ratio, blocks, add_identity,
                                  c.channel_attention))
            self.add_module(f"stage{i + 1}", nn.Sequential(*stage))

    def forward(self, x) -> Tuple[torch.Tensor, ...]:
        outs = []
        for i, name in enumerate(("stem", "stage1", "stage2", "stage3", "stage4")):
            x = getattr(self, name)(x)
            if i in self.out_indices:
                outs.append(x)
        return tuple(outs)


class CSPNeXtPAFPN(nn.Module):
    """Top-down then bottom-up fusion of the three backbone levels, a 3x3 out conv each."""

    def __init__(self, in_channels: Sequence[int], out_channels: int, num_csp_blocks: int,
                 expand_ratio: float = 0.5):
        super().__init__()
        n = len(in_channels)
        self.in_channels = tuple(in_channels)
        self.upsample = nn.Upsample(scale_factor=2, mode="nearest")
        self.reduce_layers, self.top_down_blocks = nn.ModuleList(), nn.ModuleList()
        for idx in range(n - 1, 0, -1):
            self.reduce_layers.append(ConvModule(in_channels[idx], in_channels[idx - 1], 1))
            self.top_down_blocks.append(CSPLayer(in_channels[idx - 1] * 2, in_channels[idx - 1],
                                                 expand_ratio, num_csp_blocks, False, False))
        self.downsamples, self.bottom_up_blocks = nn.ModuleList(), nn.ModuleList()
        for idx in range(n - 1):
            self.downsamples.append(ConvModule(in_channels[idx], in_channels[idx], 3, 2, 1))
            self.bottom_up_blocks.append(CSPLayer(in_channels[idx] * 2, in_channels[idx + 1],
                                                  expand_ratio, num_csp_blocks, False, False))
        self.out_convs = nn.ModuleList([ConvModule(c, out_channels, 3, 1, 1)
                                        for c in in_channels])

    def forward(self, inputs: Sequence[torch.Tensor]) -> Tuple[torch.Tensor, ...]:
        n = len(self.in_channels)
        inner = [inputs[-1]]
        for idx in range(n - 1, 0, -1):
            high = self.reduce_layers[n - 1 - idx](inner[0])
            inner[0] = high
            inner.insert(0, self.top_down_blocks[n - 1 - idx](
                torch.cat([self.upsample(high), inputs[idx - 1]], 1)))
        outs = [inner[0]]
        for idx in range(n - 1):
            down = self.downsamples[idx](outs[-1])
            outs.append(self.bottom_up_blocks[idx](torch.cat([down, inner[idx + 1]], 1)))
        return tuple(conv(o) for conv, o in zip(self.out_convs, outs))
