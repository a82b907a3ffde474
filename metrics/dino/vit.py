"""DINO (v1) ViT class-token embeddings, as `torch.hub.load("facebookresearch/dino:main",
"dino_vitb16")` computes them (facebookresearch/dino @ 7c446df, vision_transformer.py).

The hub model is DINO's own VisionTransformer: patch conv (stride = patch size), class
token, position table for a 224 px grid, pre-norm blocks (LayerNorm eps 1e-6, fused qkv
with bias, exact GELU MLP), final LayerNorm; `forward` returns the normalised class token
(`num_classes=0`, so the head is the identity). timm's VisionTransformer built with the
same sizes has exactly the same parameter names and shapes (`cls_token`, `pos_embed`,
`patch_embed.proj.*`, `blocks.N.{norm1,attn.qkv,attn.proj,norm2,mlp.fc1,mlp.fc2}.*`,
`norm.*`), so the official file loads into it unchanged with strict=True.

What timm does not reproduce is the position-table resampling for a grid other than
the trained one, so the tokens are prepared here exactly as DINO's `prepare_tokens` /
`interpolate_pos_encoding` do: unless the grid equals the table's and the input is
square, the patch table is resized with bicubic `interpolate(scale_factor=((gh + 0.1) /
sqrt(N), (gw + 0.1) / sqrt(N)))` (align_corners=False, no antialias), gh, gw = H // p,
W // p. Blocks and the final norm are timm's modules (timm's attention uses PyTorch's
scaled-dot-product kernel, DINO spells out softmax(q k^T * scale) v: float rounding).

`hub_transform` is torchvision's Resize(size) (shorter side, bilinear on the PIL image,
aspect kept, no crop), ToTensor and the ImageNet normalisation.
"""

import dataclasses
import math
from typing import Sequence

import numpy as np
from PIL import Image
import torch
import torch.nn.functional as F
from timm.models.vision_transformer import VisionTransformer
from torchvision.transforms import functional as tvf

from metrics import device as device_lib
from metrics.checkpoints import state_dict

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
INTERPOLATE_OFFSET = 0.1
DEFAULT_BATCH_SIZE = 16


@dataclasses.dataclass(frozen=True)
class DinoConfig:
    """Sizes of a DINO ViT (the hub's `vit_base(patch_size=16)` by default)."""

    patch_size: int = 16
    embed_dim: int = 768
    depth: int = 12
    num_heads: int = 12
    mlp_ratio: float = 4.0
    image_size: int = 224


VIT_B16 = DinoConfig()


def build_vit(config: DinoConfig = VIT_B16) -> VisionTransformer:
    """The architecture with random weights (nothing downloaded)."""
    return VisionTransformer(
        img_size=config.image_size, patch_size=config.patch_size, embed_dim=config.embed_dim,
        depth=config.depth, num_heads=config.num_heads, mlp_ratio=config.mlp_ratio,
        qkv_bias=True, num_classes=0, global_pool="token", class_token=True)


def load_dino(checkpoint_path, device, config: DinoConfig = VIT_B16) -> VisionTransformer:
    """Loads an official DINO state dict (e.g. `dino_vitbase16_pretrain.pth`) strictly.

    Raises:
        ValueError: The file is not a torch state dict, or its tensors do not fit `config`.
    """
    state = state_dict.read_state_dict(checkpoint_path)
    model = build_vit(config)
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError as e:
        raise ValueError(f"{checkpoint_path}: does not fit the DINO ViT {config}: {e}") from e
    return model.to(device).eval()


def position_embedding(pos_embed: torch.Tensor, grid_h: int, grid_w: int) -> torch.Tensor:
    """DINO's `interpolate_pos_encoding` for a grid_h x grid_w patch grid (see module doc)."""
    count = pos_embed.shape[1] - 1
    if grid_h * grid_w == count and grid_h == grid_w:
        return pos_embed
    side = math.sqrt(count)
    dim = pos_embed.shape[-1]
    table = pos_embed[:, 1:].reshape(1, int(side), int(side), dim).permute(0, 3, 1, 2)
    h0, w0 = grid_h + INTERPOLATE_OFFSET, grid_w + INTERPOLATE_OFFSET
    table = F.interpolate(table, scale_factor=(h0 / side, w0 / side), mode="bicubic")
    if table.shape[-2:] != (grid_h, grid_w):
        raise ValueError(f"position table resized to {tuple(table.shape[-2:])}, "
                         f"expected {(grid_h, grid_w)}")
    table = table.permute(0, 2, 3, 1).reshape(1, -1, dim)
    return torch.cat((pos_embed[:, :1], table), dim=1)


def class_token(model: VisionTransformer, pixels: torch.Tensor) -> torch.Tensor:
    """The hub model's `forward(pixels)`: the final-norm class token, (B, embed_dim)."""
    patch = model.patch_embed.proj.kernel_size[0]
    grid_h, grid_w = pixels.shape[-2] // patch, pixels.shape[-1] // patch
    tokens = model.patch_embed.proj(pixels).flatten(2).transpose(1, 2)
    tokens = torch.cat((model.cls_token.expand(tokens.shape[0], -1, -1), tokens), dim=1)
    tokens = tokens + position_embedding(model.pos_embed, grid_h, grid_w)
    return model.norm(model.blocks(tokens))[:, 0]


def hub_transform(frame_rgb: np.ndarray, size: int = 224) -> torch.Tensor:
    """Resize(size) (shorter side), ToTensor, Normalize(ImageNet) of an RGB uint8 frame.

    Raises:
        ValueError: If the frame is not (H, W, 3) uint8.
    """
    frame = np.asarray(frame_rgb)
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise ValueError(f"expected an (H, W, 3) uint8 RGB frame, got {frame.shape} {frame.dtype}")
    image = tvf.resize(Image.fromarray(frame), size)
    return tvf.normalize(tvf.to_tensor(image), IMAGENET_MEAN, IMAGENET_STD)


def frame_embeddings(model: VisionTransformer, frames_rgb: Sequence[np.ndarray],
                     size: int = 224, batch_size: int = DEFAULT_BATCH_SIZE) -> torch.Tensor:
    """L2-normalised class tokens of `hub_transform(frame)`, (N, embed_dim) float32.

    Frames of one clip share a size, so a batch equals one call per frame up to float
    rounding (every operation is per sample).

    Raises:
        ValueError: No frames, a bad frame, frames of different sizes, or batch_size < 1.
    """
    if batch_size <= 0:
        raise ValueError(f"batch_size must be positive, got {batch_size}")
    if len(frames_rgb) == 0:
        raise ValueError("expected at least one frame")
    if len({np.asarray(f).shape for f in frames_rgb}) != 1:
        raise ValueError("expected frames of one size")
    device = model.cls_token.device
    chunks = []
    for start in range(0, len(frames_rgb), batch_size):
        pixels = device_lib.to_device(torch.stack(
            [hub_transform(f, size) for f in frames_rgb[start:start + batch_size]]), device)
        with torch.no_grad():
            chunks.append(F.normalize(class_token(model, pixels).float(), dim=-1, p=2))
    return torch.cat(chunks)
