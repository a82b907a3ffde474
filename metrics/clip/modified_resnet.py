"""OpenAI CLIP's ResNet image tower (ModifiedResNet: RN50, RN101, ...), as pyiqa runs it.

Reproduces `ModifiedResNet`, `Bottleneck` and `AttentionPool2d` of OpenAI CLIP's
`clip/model.py`, in the copy pyiqa keeps (`pyiqa/archs/clip_model.py`, read at pyiqa
0.1.16), with the same module names, so the `visual.*` tensors of OpenAI's RN50.pt load
unchanged. transformers has no CLIP ResNet, hence this module. Differences from
torchvision's ResNet:

* the stem is three 3x3 convolutions (stride 2, 1, 1; widths w/2, w/2, w), each with
  BatchNorm and ReLU, then AvgPool2d(2) instead of a max pool;
* strided bottlenecks are anti-aliased: the 3x3 conv keeps stride 1 and an
  AvgPool2d(stride) follows it; the shortcut is AvgPool2d(stride) -> 1x1 conv -> BN
  (nn.Sequential keys "-1", "0", "1"), present whenever stride > 1 or the channel count
  changes; AvgPool2d floors odd sizes on both paths alike;
* the global pool is one multi-head attention step: the mean of the HxW tokens is
  prepended as a query token, q/k/v/c projections (with biases) run through
  `F.multi_head_attention_forward`, and the output of that first token is the
  embedding.

Positional embedding: OpenAI adds `attnpool.positional_embedding` (fixed 7x7+1 grid, so
224-pixel inputs only). pyiqa's `clipiqa+` calls the tower with `pos_embedding=False`
(its default), which skips it: any input size works and the weight is loaded but not
used. pyiqa's `pos_embedding=True` path (a bicubic resize of that table, used by the
`*_512` variants) is not needed here and not implemented.
"""

import collections
from typing import Sequence

import torch
from torch import nn
from torch.nn import functional as F

EXPANSION = 4


class Bottleneck(nn.Module):
    """1x1 -> 3x3 -> [AvgPool(stride)] -> 1x1 (x4 channels), with an anti-aliased shortcut."""

    def __init__(self, inplanes: int, planes: int, stride: int = 1):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.avgpool = nn.AvgPool2d(stride) if stride > 1 else nn.Identity()
        self.conv3 = nn.Conv2d(planes, planes * EXPANSION, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(planes * EXPANSION)
        self.downsample = None
        if stride > 1 or inplanes != planes * EXPANSION:
            self.downsample = nn.Sequential(collections.OrderedDict([
                ("-1", nn.AvgPool2d(stride)),
                ("0", nn.Conv2d(inplanes, planes * EXPANSION, 1, stride=1, bias=False)),
                ("1", nn.BatchNorm2d(planes * EXPANSION)),
            ]))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = F.relu(self.bn1(self.conv1(x)))
        out = F.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(self.avgpool(out)))
        identity = x if self.downsample is None else self.downsample(x)
        return F.relu(out + identity)


class AttentionPool2d(nn.Module):
    """QKV attention pooling; `positional_embedding` is kept for loading, see module doc."""

    def __init__(self, num_positions: int, embed_dim: int, num_heads: int, output_dim: int):
        super().__init__()
        self.positional_embedding = nn.Parameter(torch.zeros(num_positions, embed_dim))
        self.k_proj = nn.Linear(embed_dim, embed_dim)
        self.q_proj = nn.Linear(embed_dim, embed_dim)
        self.v_proj = nn.Linear(embed_dim, embed_dim)
        self.c_proj = nn.Linear(embed_dim, output_dim)
        self.num_heads = num_heads

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(N, C, H, W) -> (N, output_dim), without positional embedding."""
        tokens = x.flatten(2).permute(2, 0, 1)  # (HW, N, C)
        tokens = torch.cat([tokens.mean(dim=0, keepdim=True), tokens], dim=0)
        out, _ = F.multi_head_attention_forward(
            query=tokens, key=tokens, value=tokens, embed_dim_to_check=tokens.shape[-1],
            num_heads=self.num_heads, in_proj_weight=None,
            in_proj_bias=torch.cat([self.q_proj.bias, self.k_proj.bias, self.v_proj.bias]),
            bias_k=None, bias_v=None, add_zero_attn=False, dropout_p=0.0,
            out_proj_weight=self.c_proj.weight, out_proj_bias=self.c_proj.bias,
            training=self.training, need_weights=False, use_separate_proj_weight=True,
            q_proj_weight=self.q_proj.weight, k_proj_weight=self.k_proj.weight,
            v_proj_weight=self.v_proj.weight)
        return out[0]


class ModifiedResNet(nn.Module):
    """The CLIP ResNet: 3-conv stem, four bottleneck stages, attention pooling.

    Args:
        layers: Bottlenecks per stage, (3, 4, 6, 3) for RN50.
        width: Stem width (64 for RN50); stage i has width * 2**i planes.
        output_dim: Embedding size (1024 for RN50).
        heads: Attention-pool heads (OpenAI: width * 32 // 64).
        num_positions: Rows of attnpool.positional_embedding (7 * 7 + 1 for RN50).
    """

    def __init__(self, layers: Sequence[int], width: int, output_dim: int, heads: int,
                 num_positions: int):
        super().__init__()
        if len(layers) != 4:
            raise ValueError(f"expected 4 stages, got {list(layers)}")
        self.conv1 = nn.Conv2d(3, width // 2, kernel_size=3, stride=2, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(width // 2)
        self.conv2 = nn.Conv2d(width // 2, width // 2, kernel_size=3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(width // 2)
        self.conv3 = nn.Conv2d(width // 2, width, kernel_size=3, padding=1, bias=False)
        self.bn3 = nn.BatchNorm2d(width)
        self.avgpool = nn.AvgPool2d(2)
        inplanes = width
        for index, (blocks, stride) in enumerate(zip(layers, (1, 2, 2, 2))):
            planes = width * 2 ** index
            stage = [Bottleneck(inplanes, planes, stride)]
            inplanes = planes * EXPANSION
            stage += [Bottleneck(inplanes, planes) for _ in range(1, blocks)]
            setattr(self, f"layer{index + 1}", nn.Sequential(*stage))
        self.attnpool = AttentionPool2d(num_positions, width * 32, heads, output_dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(N, 3, H, W) normalised pixels -> (N, output_dim) image features."""
        x = x.type(self.conv1.weight.dtype)
        for conv, bn in ((self.conv1, self.bn1), (self.conv2, self.bn2), (self.conv3, self.bn3)):
            x = F.relu(bn(conv(x)))
        x = self.avgpool(x)
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.attnpool(x)
