"""VFIMamba's Mamba stages: the 2-D selective-scan mixer over an interleaved frame pair
(`SS2D`), its residual block with channel attention (`VSSBlock`) and a stack of those.

Module and parameter names are the official ones (MCG-NJU/VFIMamba model/
feature_extractor.py), so that the official checkpoint loads unchanged; the code is ours.
Evaluation only: dropout, drop-path and the training initialisation are left out (the
weights come from the checkpoint; random weights in tests come from torch's defaults).

How SS2D mixes two frames: the batch holds the first frames then the second frames
(2P images for P pairs). Each pair becomes one sequence of 2HW tokens in which the two
frames' tokens alternate (pixel p of frame 0, pixel p of frame 1, ...), in row-major and
in column-major pixel order, each also reversed: four scans whose channels go through the
selective scan as four groups. The column-major outputs are brought back with the
official reshapes (a `view` to (2C, W, H) of a (C, 2HW) tensor and a transpose), which are
not a plain inverse of the column-major order; they are kept as they are, since the
checkpoint was trained with them.
"""

import math

import torch
from torch import nn
from torch.nn import functional as F

from metrics.interpolation import selective_scan as scan_lib

D_STATE = 16
EXPAND = 2.0
D_CONV = 3
CAB_COMPRESS = 3
CAB_SQUEEZE = 30


class ChannelAttention(nn.Module):
    """x times a per-channel gate from its global average (RCAN style)."""

    def __init__(self, channels: int, squeeze: int):
        super().__init__()
        self.attention = nn.Sequential(
            nn.AdaptiveAvgPool2d(1), nn.Conv2d(channels, channels // squeeze, 1),
            nn.ReLU(inplace=True), nn.Conv2d(channels // squeeze, channels, 1), nn.Sigmoid())

    def forward(self, x):
        return x * self.attention(x)


class CAB(nn.Module):
    """Two 3x3 convolutions (GELU between) and channel attention, on NCHW."""

    def __init__(self, channels: int):
        super().__init__()
        hidden = channels // CAB_COMPRESS
        self.cab = nn.Sequential(
            nn.Conv2d(channels, hidden, 3, 1, 1), nn.GELU(),
            nn.Conv2d(hidden, channels, 3, 1, 1), ChannelAttention(channels, CAB_SQUEEZE))

    def forward(self, x):
        return self.cab(x)


def _interleave_pair(x: torch.Tensor) -> torch.Tensor:
    """(2P, C, H, W) -> (P, C, 2HW): frame 0 and frame 1 tokens alternating."""
    images, channels = x.shape[:2]
    tokens = x.reshape(images, channels, -1).transpose(1, 2)  # (2P, HW, C)
    pairs = images // 2
    joined = torch.cat([tokens[:pairs], tokens[pairs:]], dim=-1)  # (P, HW, 2C)
    return joined.reshape(pairs, -1, channels).transpose(1, 2).contiguous()


class SS2D(nn.Module):
    """The four-direction selective scan over an interleaved frame pair, on NHWC."""

    def __init__(self, d_model: int, d_state: int = D_STATE, expand: float = EXPAND):
        super().__init__()
        self.d_model, self.d_state = d_model, d_state
        self.d_inner = int(expand * d_model)
        self.dt_rank = math.ceil(d_model / 16)
        k, inner, rank = 4, self.d_inner, self.dt_rank
        self.in_proj = nn.Linear(d_model, inner * 2, bias=False)
        self.conv2d = nn.Conv2d(inner, inner, D_CONV, padding=(D_CONV - 1) // 2, groups=inner)
        self.x_proj_weight = nn.Parameter(torch.randn(k, rank + 2 * d_state, inner) * 0.02)
        self.dt_projs_weight = nn.Parameter(torch.randn(k, inner, rank) * rank ** -0.5)
        self.dt_projs_bias = nn.Parameter(torch.randn(k, inner) * 0.1)
        a = torch.arange(1, d_state + 1, dtype=torch.float32).repeat(k * inner, 1)
        self.A_logs = nn.Parameter(torch.log(a))
        self.Ds = nn.Parameter(torch.ones(k * inner))
        self.out_norm = nn.LayerNorm(inner)
        self.out_proj = nn.Linear(inner, d_model, bias=False)

    def _scan(self, x: torch.Tensor):
        """(2P, C, H, W) -> four (P, C, 2HW) outputs, each in row-major interleaved order."""
        _, channels, height, width = x.shape
        row = _interleave_pair(x)
        col = _interleave_pair(x.transpose(2, 3).contiguous())
        pairs, length = row.shape[0], row.shape[-1]
        forward = torch.stack([row, col], dim=1).view(pairs, 2, -1, length)
        sequences = torch.cat([forward, forward.flip(-1)], dim=1)  # (P, 4, C, L)
        projected = torch.einsum("bkdl,kcd->bkcl", sequences, self.x_proj_weight)
        dts, b, c = torch.split(projected, [self.dt_rank, self.d_state, self.d_state], dim=2)
        dts = torch.einsum("bkrl,kdr->bkdl", dts, self.dt_projs_weight)
        y = scan_lib.selective_scan(
            sequences.float().view(pairs, -1, length), dts.contiguous().float().view(pairs, -1, length),
            -torch.exp(self.A_logs.float()), b.float(), c.float(), self.Ds.float(),
            delta_bias=self.dt_projs_bias.float().view(-1), delta_softplus=True,
        ).view(pairs, 4, -1, length)
        reversed_back = y[:, 2:4].flip(-1)

        def from_columns(t):  # the official reshape of a column-major output
            return t.view(pairs, -1, width, height).transpose(2, 3).contiguous().view(
                pairs, -1, length)

        return y[:, 0], reversed_back[:, 0], from_columns(y[:, 1]), from_columns(reversed_back[:, 1])

    def forward(self, x):  # pylint: disable=arguments-differ
        images, height, width, _ = x.shape
        inner, z = self.in_proj(x).chunk(2, dim=-1)
        inner = F.silu(self.conv2d(inner.permute(0, 3, 1, 2).contiguous()))
        y = sum(self._scan(inner))  # (P, C, 2HW)
        pairs = images // 2
        y = y.transpose(1, 2).contiguous().view(pairs, height * width, 2, self.d_inner)
        y = torch.cat([y[:, :, 0], y[:, :, 1]], 0).view(images, height, width, self.d_inner)
        return self.out_proj(self.out_norm(y) * F.silu(z))


class VSSBlock(nn.Module):
    """x*s1 + SS2D(LN(x)), then *s2 + CAB(LN(.)); NCHW in and out."""

    def __init__(self, hidden_dim: int, d_state: int = D_STATE):
        super().__init__()
        self.ln_1 = nn.LayerNorm(hidden_dim)
        self.self_attention = SS2D(hidden_dim, d_state=d_state, expand=EXPAND)
        self.skip_scale = nn.Parameter(torch.ones(hidden_dim))
        self.conv_blk = CAB(hidden_dim)
        self.ln_2 = nn.LayerNorm(hidden_dim)
        self.skip_scale2 = nn.Parameter(torch.ones(hidden_dim))

    def forward(self, x):  # pylint: disable=arguments-differ
        x = x.permute(0, 2, 3, 1).contiguous()
        x = x * self.skip_scale + self.self_attention(self.ln_1(x))
        attended = self.conv_blk(self.ln_2(x).permute(0, 3, 1, 2).contiguous())
        x = x * self.skip_scale2 + attended.permute(0, 2, 3, 1).contiguous()
        return x.permute(0, 3, 1, 2).contiguous()


class BiMambaBlock(nn.Module):
    """`depth` VSSBlocks in a row."""

    def __init__(self, dim: int, depth: int):
        super().__init__()
        self.blocks = nn.ModuleList(VSSBlock(dim) for _ in range(depth))

    def forward(self, x):  # pylint: disable=arguments-differ
        for block in self.blocks:
            x = block(x)
        return x
