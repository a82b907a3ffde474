"""The VideoMAE v2 fine-tuning ViT (video classifier), written here with the official
parameter names so that its checkpoints load unchanged.

The function, as the VideoMAE v2 fine-tuning code builds it (read and described here):
  patch embedding  Conv3d, kernel = stride = (tubelet, patch, patch), tokens laid out
                   (T', H', W') after flatten;
  position table   the fixed sine-cosine table (not a parameter, not in the state dict),
                   or a learned one (`learnable_pos_embed`), added in the tokens' dtype;
  blocks           pre-norm LayerNorm(eps) -> attention -> residual, LayerNorm -> MLP
                   (Linear, exact GELU, Linear, hidden int(dim * mlp_ratio)) -> residual;
                   no layer scale (the CAS model's init_values is 0);
  attention        one bias-free qkv Linear plus separate q_bias and v_bias (the k bias is
                   zero), q scaled by head_dim ** -0.5 before q @ k^T, softmax, @ v;
  head             mean over all tokens -> fc_norm LayerNorm(eps) -> Linear(num_classes).

transformers' VideoMAEForVideoClassification is close but not the same function: its
fc_norm uses LayerNorm's default eps 1e-5 (the official one 1e-6) and it computes q, k, v
with three Linears, which under fp16 autocast round differently from the fused one.
"""

import dataclasses
import math

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F


@dataclasses.dataclass(frozen=True)
class VitConfig:
    img_size: int = 224
    patch_size: int = 14
    embed_dim: int = 1408
    depth: int = 40
    num_heads: int = 16
    mlp_ratio: float = 48 / 11
    num_classes: int = 5
    frames: int = 16
    tubelet_size: int = 2
    learnable_pos_embed: bool = False
    init_scale: float = 0.001
    norm_eps: float = 1e-6

    @property
    def grid(self) -> int:
        return self.img_size // self.patch_size

    @property
    def num_patches(self) -> int:
        return self.grid * self.grid * (self.frames // self.tubelet_size)


# vit_giant_patch14_224 with the CAS script's arguments: 5 classes, 16 frames, tubelet 2,
# mean pooling, init_scale 0.001 (drop_path 0.3 does nothing at eval).
VIT_G_CAS = VitConfig()


def sinusoid_table(num_positions: int, dim: int) -> torch.Tensor:
    """(1, num_positions, dim) float32: angle p / 10000^(2*(j//2)/dim), sin on even j,
    cos on odd j, computed in float64."""
    denominators = np.array([np.power(10000, 2 * (j // 2) / dim) for j in range(dim)])
    table = np.arange(num_positions, dtype=np.float64)[:, None] / denominators[None, :]
    table[:, 0::2] = np.sin(table[:, 0::2])
    table[:, 1::2] = np.cos(table[:, 1::2])
    return torch.tensor(table, dtype=torch.float32).unsqueeze(0)


class PatchEmbed(nn.Module):
    def __init__(self, config: VitConfig):
        super().__init__()
        kernel = (config.tubelet_size, config.patch_size, config.patch_size)
        self.proj = nn.Conv3d(3, config.embed_dim, kernel_size=kernel, stride=kernel)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.proj(x).flatten(2).transpose(1, 2)


class Attention(nn.Module):
    def __init__(self, dim: int, num_heads: int):
        super().__init__()
        self.num_heads = num_heads
        self.scale = (dim // num_heads) ** -0.5
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.q_bias = nn.Parameter(torch.zeros(dim))
        self.v_bias = nn.Parameter(torch.zeros(dim))
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, tokens, _ = x.shape
        bias = torch.cat((self.q_bias, torch.zeros_like(self.v_bias), self.v_bias))
        qkv = F.linear(x, self.qkv.weight, bias)
        q, k, v = qkv.reshape(batch, tokens, 3, self.num_heads, -1).permute(2, 0, 3, 1, 4)
        weights = ((q * self.scale) @ k.transpose(-2, -1)).softmax(dim=-1)
        return self.proj((weights @ v).transpose(1, 2).reshape(batch, tokens, -1))


class Mlp(nn.Module):
    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(self.act(self.fc1(x)))


class Block(nn.Module):
    def __init__(self, config: VitConfig):
        super().__init__()
        dim = config.embed_dim
        self.norm1 = nn.LayerNorm(dim, eps=config.norm_eps)
        self.attn = Attention(dim, config.num_heads)
        self.norm2 = nn.LayerNorm(dim, eps=config.norm_eps)
        self.mlp = Mlp(dim, int(dim * config.mlp_ratio))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class VideoClassifierViT(nn.Module):
    """(B, 3, frames, img, img) normalised clips -> (B, num_classes) logits."""

    def __init__(self, config: VitConfig):
        super().__init__()
        if config.embed_dim % config.num_heads:
            raise ValueError(f"embed_dim {config.embed_dim} is not a multiple of "
                             f"num_heads {config.num_heads}")
        self.config = config
        self.patch_embed = PatchEmbed(config)
        if config.learnable_pos_embed:
            self.pos_embed = nn.Parameter(torch.zeros(1, config.num_patches, config.embed_dim))
        else:  # like the official plain tensor attribute: never in the state dict
            self.register_buffer("pos_embed",
                                 sinusoid_table(config.num_patches, config.embed_dim),
                                 persistent=False)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.depth))
        self.fc_norm = nn.LayerNorm(config.embed_dim, eps=config.norm_eps)
        self.head = nn.Linear(config.embed_dim, config.num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        c = self.config
        if tuple(x.shape[1:]) != (3, c.frames, c.img_size, c.img_size):
            raise ValueError(f"expected clips (B, 3, {c.frames}, {c.img_size}, {c.img_size}), "
                             f"found {tuple(x.shape)}")
        x = self.patch_embed(x)
        x = x + self.pos_embed.detach().type_as(x)
        for block in self.blocks:
            x = block(x)
        return self.head(self.fc_norm(x.mean(1)))


def random_init(config: VitConfig = VIT_G_CAS, seed: int = 0) -> VideoClassifierViT:
    """The official constructor's initialisation (the CAS script as shipped scores with
    it): every Linear weight trunc_normal(std 0.02, cut at +-2), Linear biases 0, LayerNorm
    1 / 0, q_bias = v_bias = 0, the Conv3d as torch initialises it, a learned position
    table trunc_normal(0.02), then the head's weight and bias times init_scale. Modules
    are created and initialised in the official order and the truncated normal is drawn
    by the inverse CDF as timm 0.4.12 draws it (torch 2.14's own trunc_normal_ samples
    differently), so under the same torch and seed the weights are the official ones
    (checked in the parity entry)."""
    torch.manual_seed(seed)
    model = VideoClassifierViT(config)
    with torch.no_grad():
        if config.learnable_pos_embed:
            _trunc_normal(model.pos_embed, 0.02)
        model.apply(_init_module)
        model.head.weight.mul_(config.init_scale)
        model.head.bias.mul_(config.init_scale)
    return model.eval()


def _init_module(module: nn.Module) -> None:
    if isinstance(module, nn.Linear):
        _trunc_normal(module.weight, 0.02)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
    elif isinstance(module, nn.LayerNorm):
        nn.init.ones_(module.weight)
        nn.init.zeros_(module.bias)


def _trunc_normal(tensor: torch.Tensor, std: float, low: float = -2.0,
                  high: float = 2.0) -> None:
    """N(0, std) cut to [low, high]: uniform in (2 cdf(low) - 1, 2 cdf(high) - 1), then
    erfinv, times std * sqrt(2), clamped."""
    def cdf(x: float) -> float:
        return (1.0 + math.erf(x / std / math.sqrt(2.0))) / 2.0

    tensor.uniform_(2 * cdf(low) - 1, 2 * cdf(high) - 1)
    tensor.erfinv_().mul_(std * math.sqrt(2.0)).clamp_(min=low, max=high)
