"""CoTracker3's update transformer (co-tracker's EfficientUpdateFormer, offline use).

Tokens are (point, frame) pairs plus learned "virtual tracks". Each time block attends
along frames within one track; after every (time_depth / space_depth)-th time block, a
space step lets the virtual tracks read all points (cross attention), attend among
themselves, and the points read the virtual tracks back. Heads: to_q, a fused to_kv
(first half keys, second half values), to_out; logits scaled by head_dim^-0.5.

Details that move numbers and are kept: self-attention blocks use LayerNorm without
affine parameters (eps 1e-6) and a tanh-approximated GELU; the cross-attention context
norm is an affine LayerNorm with torch's default eps 1e-5; the head is a 2-wide flow
layer plus a separate 2-wide visibility/confidence layer. Parameter names follow the
official module (including its `virual_tracks` spelling) so checkpoint keys match.
"""

import torch
from torch import nn

from metrics.tracking.cotracker3 import config as config_lib


class Mlp(nn.Module):
    """fc1 -> activation -> fc2."""

    def __init__(self, width: int, hidden: int, out: int, approximate: str):
        super().__init__()
        self.fc1 = nn.Linear(width, hidden)
        self.act = nn.GELU(approximate=approximate)
        self.fc2 = nn.Linear(hidden, out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(self.act(self.fc1(x)))


class Attention(nn.Module):
    """Multi-head attention of x over context (x itself when no context is given)."""

    def __init__(self, width: int, heads: int):
        super().__init__()
        self.heads = heads
        self.scale = (width // heads) ** -0.5
        self.to_q = nn.Linear(width, width)
        self.to_kv = nn.Linear(width, 2 * width)
        self.to_out = nn.Linear(width, width)

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, width = x.shape
        return x.reshape(batch, length, self.heads, width // self.heads).transpose(1, 2)

    def forward(self, x: torch.Tensor, context: torch.Tensor = None,
                bias: torch.Tensor = None) -> torch.Tensor:
        """Adds `bias` (broadcast to B, heads, Lx, Lc) to the logits (CoTracker2 masks)."""
        source = x if context is None else context
        keys, values = self.to_kv(source).chunk(2, dim=-1)
        logits = (self._split(self.to_q(x)) @ self._split(keys).transpose(-2, -1)) * self.scale
        if bias is not None:
            logits = logits + bias
        mixed = logits.softmax(dim=-1) @ self._split(values)
        return self.to_out(mixed.transpose(1, 2).reshape(x.shape))


class SelfBlock(nn.Module):
    """Pre-norm self attention + MLP, both residual."""

    def __init__(self, width: int, heads: int, mlp_ratio: float):
        super().__init__()
        self.norm1 = nn.LayerNorm(width, elementwise_affine=False, eps=1e-6)
        self.attn = Attention(width, heads)
        self.norm2 = nn.LayerNorm(width, elementwise_affine=False, eps=1e-6)
        self.mlp = Mlp(width, int(width * mlp_ratio), width, approximate="tanh")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class CrossBlock(nn.Module):
    """Pre-norm attention of x over a (normalised) context + MLP, both residual."""

    def __init__(self, width: int, heads: int, mlp_ratio: float):
        super().__init__()
        self.norm1 = nn.LayerNorm(width, elementwise_affine=False, eps=1e-6)
        self.norm_context = nn.LayerNorm(width)
        self.cross_attn = Attention(width, heads)
        self.norm2 = nn.LayerNorm(width, elementwise_affine=False, eps=1e-6)
        self.mlp = Mlp(width, int(width * mlp_ratio), width, approximate="tanh")

    def forward(self, x: torch.Tensor, context: torch.Tensor,
                bias: torch.Tensor = None) -> torch.Tensor:
        x = x + self.cross_attn(self.norm1(x), self.norm_context(context), bias)
        return x + self.mlp(self.norm2(x))


def _blocks(kind, count: int, cfg: config_lib.CoTracker3Config) -> nn.ModuleList:
    return nn.ModuleList(kind(cfg.hidden_size, cfg.num_heads, cfg.mlp_ratio) for _ in range(count))


class UpdateTransformer(nn.Module):
    """(B, N, T, input_dim) tokens -> (B, N, T, 4): dx, dy, visibility and confidence logits."""

    def __init__(self, cfg: config_lib.CoTracker3Config):
        super().__init__()
        width = cfg.hidden_size
        self.input_transform = nn.Linear(cfg.input_dim, width)
        self.flow_head = nn.Linear(width, 2)
        self.vis_conf_head = nn.Linear(width, 2)
        self.virual_tracks = nn.Parameter(torch.randn(1, cfg.num_virtual_tracks, 1, width))
        self.time_blocks = _blocks(SelfBlock, cfg.time_depth, cfg)
        self.space_virtual_blocks = _blocks(SelfBlock, cfg.space_depth, cfg)
        self.space_point2virtual_blocks = _blocks(CrossBlock, cfg.space_depth, cfg)
        self.space_virtual2point_blocks = _blocks(CrossBlock, cfg.space_depth, cfg)
        self.space_every = cfg.time_depth // cfg.space_depth

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = mix_with_virtual_tracks(self, tokens)
        return torch.cat([self.flow_head(x), self.vis_conf_head(x)], dim=-1)


def mix_with_virtual_tracks(net: nn.Module, tokens: torch.Tensor, bias=None) -> torch.Tensor:
    """The update transformers' body, shared by CoTracker3 and CoTracker2: (B, N, T, C)
    tokens -> (B, N, T, width) point states before the heads.

    `net` has input_transform, virual_tracks, time_blocks and the three space block
    lists. The virtual tracks join the points; after every `space_every`-th time block the
    virtual tracks attend to the points, to each other, and the points to them.
    `bias(rows, dtype)` (CoTracker2's track mask) gives the additive attention bias of a
    cross step whose queries are `rows` tokens; None: no bias.
    """
    batch, points, frames, _ = tokens.shape
    x = net.input_transform(tokens)
    virtual = net.virual_tracks.repeat(batch, 1, frames, 1)
    x = torch.cat([x, virtual], dim=1)  # B (N + V) T D
    total, width = x.shape[1], x.shape[-1]
    for i, time_block in enumerate(net.time_blocks):
        x = time_block(x.reshape(batch * total, frames, width)).view(batch, total, frames,
                                                                     width)
        if i % net.space_every:
            continue
        j = i // net.space_every
        across = x.permute(0, 2, 1, 3).reshape(batch * frames, total, width)
        real, virtual = across[:, :points], across[:, points:]
        virtual = net.space_virtual2point_blocks[j](
            virtual, real, None if bias is None else bias(virtual.shape[1], x.dtype))
        virtual = net.space_virtual_blocks[j](virtual)
        real = net.space_point2virtual_blocks[j](
            real, virtual, None if bias is None else bias(real.shape[1], x.dtype))
        x = torch.cat([real, virtual], dim=1).view(batch, frames, total, width)
        x = x.permute(0, 2, 1, 3)
    return x[:, :points]
