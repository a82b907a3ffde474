"""Tag2Text's image encoder: the original Swin Transformer (Liu et al. 2021) as Tag2Text
ships it (Vchitect/VBench@45e79ec vbench/third_party/tag2Text/swin_transformer.py), written
here from the paper's definition with the official parameter names.

timm's SwinTransformer is not used: its names differ (downsampling sits at the start of
the next stage) and it has no image-level token. What this one computes, per the file:

* patch embedding: 4x4 stride-4 convolution, then LayerNorm (patch_norm=True, no
  absolute position table: ape=False);
* four stages of blocks; block i of a stage shifts its windows by window//2 when i is odd
  and the stage's grid is larger than the window (a stage whose grid is no larger than
  the window uses one window of the grid's size, unshifted: at 384 px the last stage's
  12x12 grid is exactly one 12x12 window);
* a block: x + W-MSA(LN(x)), then x + MLP(LN(x)) (fc1, exact GELU, fc2). Attention:
  q scaled by head_dim^-0.5 BEFORE q @ k^T, plus the relative-position bias table,
  plus -100 (not -inf) between tokens of different shifted regions, softmax;
* patch merging after stages 1-3: the 2x2 neighbours concatenated in the order
  (even row, even col), (odd, even), (even, odd), (odd, odd), LayerNorm(4C), Linear 4C->2C
  without bias;
* the output: final LayerNorm, then the mean of all tokens prepended as token 0
  ((B, 1 + tokens, width)).

Relative position indices and shift masks are recomputed (non-persistent buffers):
upstream's loader deletes them from the checkpoint too. Dropout and drop-path are
inference no-ops (eval only). Upstream's PatchEmbed moves the input and the convolution to
the CPU on every call and the result back to the input's device; kept here (PatchEmbed).
"""

from typing import List, Optional, Sequence

import torch
from torch import nn

SHIFT_MASK_VALUE = -100.0  # the value added between tokens of different shifted regions


def _windows(x: torch.Tensor, window: int) -> torch.Tensor:
    """(B, H, W, C) -> (B * windows, window * window, C), windows in row-major order."""
    b, h, w, c = x.shape
    x = x.view(b, h // window, window, w // window, window, c)
    return x.permute(0, 1, 3, 2, 4, 5).reshape(-1, window * window, c)


def _unwindow(x: torch.Tensor, window: int, h: int, w: int) -> torch.Tensor:
    """The inverse of _windows: (B * windows, window * window, C) -> (B, H, W, C)."""
    c = x.shape[-1]
    b = x.shape[0] // ((h // window) * (w // window))
    x = x.view(b, h // window, w // window, window, window, c)
    return x.permute(0, 1, 3, 2, 4, 5).reshape(b, h, w, c)


def relative_position_index(window: int) -> torch.Tensor:
    """(window^2, window^2) index into the (2*window-1)^2 bias table: for tokens i, j at
    (ri, ci), (rj, cj) the row offset (ri - rj + window - 1) times (2*window - 1) plus
    the column offset (ci - cj + window - 1)."""
    rows, cols = torch.meshgrid(torch.arange(window), torch.arange(window), indexing="ij")
    rows, cols = rows.flatten(), cols.flatten()
    d_row = rows[:, None] - rows[None, :] + window - 1
    d_col = cols[:, None] - cols[None, :] + window - 1
    return d_row * (2 * window - 1) + d_col


def shift_mask(h: int, w: int, window: int, shift: int) -> torch.Tensor:
    """(windows, window^2, window^2): 0 within a region, SHIFT_MASK_VALUE across regions
    of the cyclically shifted grid (three bands per axis: [0, -window), [-window,
    -shift), [-shift, end))."""
    label = torch.zeros(1, h, w, 1)
    bands = (slice(0, -window), slice(-window, -shift), slice(-shift, None))
    region = 0
    for rb in bands:
        for cb in bands:
            label[:, rb, cb, :] = region
            region += 1
    label = _windows(label, window).squeeze(-1)
    diff = label[:, None, :] - label[:, :, None]
    return torch.where(diff != 0, torch.tensor(SHIFT_MASK_VALUE), torch.tensor(0.0))


class WindowAttention(nn.Module):
    def __init__(self, dim: int, window: int, heads: int):
        super().__init__()
        self.heads = heads
        self.window = window
        self.scale = (dim // heads) ** -0.5
        self.relative_position_bias_table = nn.Parameter(
            torch.zeros((2 * window - 1) ** 2, heads))
        self.register_buffer("relative_position_index", relative_position_index(window),
                             persistent=False)
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, mask: Optional[torch.Tensor]) -> torch.Tensor:
        bw, n, c = x.shape
        qkv = self.qkv(x).reshape(bw, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = (q * self.scale) @ k.transpose(-2, -1)
        bias = self.relative_position_bias_table[self.relative_position_index.view(-1)]
        attn = attn + bias.view(n, n, -1).permute(2, 0, 1).unsqueeze(0)
        if mask is not None:
            windows = mask.shape[0]
            attn = attn.view(bw // windows, windows, self.heads, n, n) + mask[None, :, None]
            attn = attn.view(-1, self.heads, n, n)
        attn = attn.softmax(dim=-1)
        return self.proj((attn @ v).transpose(1, 2).reshape(bw, n, c))


class Mlp(nn.Module):
    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(self.act(self.fc1(x)))


class Block(nn.Module):
    def __init__(self, dim: int, grid: int, heads: int, window: int, shift: int,
                 mlp_ratio: float):
        super().__init__()
        if grid <= window:  # the whole grid is one window, never shifted
            window, shift = grid, 0
        self.grid, self.window, self.shift = grid, window, shift
        self.norm1 = nn.LayerNorm(dim)
        self.attn = WindowAttention(dim, window, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = Mlp(dim, int(dim * mlp_ratio))
        self.register_buffer("attn_mask", shift_mask(grid, grid, window, shift)
                             if shift else None, persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, c = x.shape
        g = self.grid
        y = self.norm1(x).view(b, g, g, c)
        if self.shift:
            y = torch.roll(y, shifts=(-self.shift, -self.shift), dims=(1, 2))
        y = self.attn(_windows(y, self.window), self.attn_mask)
        y = _unwindow(y, self.window, g, g)
        if self.shift:
            y = torch.roll(y, shifts=(self.shift, self.shift), dims=(1, 2))
        x = x + y.reshape(b, n, c)
        return x + self.mlp(self.norm2(x))


class PatchMerging(nn.Module):
    def __init__(self, dim: int, grid: int):
        super().__init__()
        self.grid = grid
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)
        self.norm = nn.LayerNorm(4 * dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, _, c = x.shape
        x = x.view(b, self.grid, self.grid, c)
        x = torch.cat([x[:, 0::2, 0::2], x[:, 1::2, 0::2], x[:, 0::2, 1::2], x[:, 1::2, 1::2]],
                      dim=-1)
        return self.reduction(self.norm(x.view(b, -1, 4 * c)))


class Stage(nn.Module):
    def __init__(self, dim: int, grid: int, depth: int, heads: int, window: int,
                 mlp_ratio: float, merge: bool):
        super().__init__()
        self.blocks = nn.ModuleList(
            Block(dim, grid, heads, window, 0 if i % 2 == 0 else window // 2, mlp_ratio)
            for i in range(depth))
        self.downsample = PatchMerging(dim, grid) if merge else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block(x)
        return x if self.downsample is None else self.downsample(x)


class PatchEmbed(nn.Module):
    def __init__(self, dim: int, patch: int):
        super().__init__()
        self.proj = nn.Conv2d(3, dim, kernel_size=patch, stride=patch)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Upstream runs this convolution on the CPU whatever the device (see the module
        # doc); so does this, so that a CUDA run gets the CPU's float32 convolution too
        # (cuDNN may otherwise use TF32 for convolutions).
        w = self.proj
        out = nn.functional.conv2d(x.cpu(), w.weight.cpu(), w.bias.cpu(), stride=w.stride)
        return self.norm(out.to(x.device).flatten(2).transpose(1, 2))


class SwinTransformer(nn.Module):
    """(B, 3, S, S) normalised images -> (B, 1 + (S/32)^2, embed_dim * 8)."""

    def __init__(self, image_size: int, embed_dim: int, depths: Sequence[int],
                 num_heads: Sequence[int], window_size: int, patch_size: int = 4,
                 mlp_ratio: float = 4.0):
        super().__init__()
        self.image_size = image_size
        self.patch_embed = PatchEmbed(embed_dim, patch_size)
        grid = image_size // patch_size
        stages: List[Stage] = []
        for i, (depth, heads) in enumerate(zip(depths, num_heads)):
            stages.append(Stage(embed_dim * 2 ** i, grid // 2 ** i, depth, heads, window_size,
                                mlp_ratio, merge=i < len(depths) - 1))
        self.layers = nn.ModuleList(stages)
        self.width = embed_dim * 2 ** (len(depths) - 1)
        self.norm = nn.LayerNorm(self.width)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        if images.shape[-2:] != (self.image_size, self.image_size):
            raise ValueError(f"images are {tuple(images.shape[-2:])}, the encoder takes "
                             f"{self.image_size}x{self.image_size}")
        x = self.patch_embed(images)
        for stage in self.layers:
            x = stage(x)
        x = self.norm(x)
        pooled = nn.functional.adaptive_avg_pool1d(x.transpose(1, 2), 1).transpose(1, 2)
        return torch.cat([pooled, x], dim=1)
