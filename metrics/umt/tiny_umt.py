"""Seeded random UMT weights in the official file's form (tests and the parity check).

`official_shapes(config)` lists the official state dict's keys and shapes for a config
(modeling_finetune.VisionTransformer's parameter names); `random_state` fills them with
seeded normal noise (numpy's PCG64, so the values are the same on every machine);
`write_checkpoint` saves them as the official file is saved: a flat dict of float16
tensors without `pos_embed` (metrics/umt/loader.py says why). TINY is a small network of
the official layout that still reads VBench's 16 x 224 x 224 clips.
"""

import os
from typing import Dict, Tuple

import numpy as np
import torch

from metrics.umt import vit

# Width 32, 2 blocks, 2 heads; the official patch, frames, tubelet and 400 classes.
TINY = vit.with_size(vit.UMT_L16_K400, embed_dim=32, depth=2, num_heads=2)
HEAD_BIAS = -2.5  # puts the sigmoid's top 5 near VBench's 0.85 cut (kept and dropped)


def official_shapes(config: vit.VitConfig) -> Dict[str, Tuple[int, ...]]:
    """key -> shape of the official model's state dict, in its order."""
    dim, hidden = config.embed_dim, int(config.embed_dim * config.mlp_ratio)
    shapes = {}
    if config.learnable_pos_embed:  # the module's own parameter: listed first
        shapes["pos_embed"] = (1, config.num_patches, dim)
    shapes["patch_embed.proj.weight"] = (dim, 3, config.tubelet_size, config.patch_size,
                                         config.patch_size)
    shapes["patch_embed.proj.bias"] = (dim,)
    for i in range(config.depth):
        block = f"blocks.{i}."
        shapes.update({
            block + "norm1.weight": (dim,), block + "norm1.bias": (dim,),
            block + "attn.q_bias": (dim,), block + "attn.v_bias": (dim,),
            block + "attn.qkv.weight": (3 * dim, dim),
            block + "attn.proj.weight": (dim, dim), block + "attn.proj.bias": (dim,),
            block + "norm2.weight": (dim,), block + "norm2.bias": (dim,),
            block + "mlp.fc1.weight": (hidden, dim), block + "mlp.fc1.bias": (hidden,),
            block + "mlp.fc2.weight": (dim, hidden), block + "mlp.fc2.bias": (dim,)})
    shapes.update({"fc_norm.weight": (dim,), "fc_norm.bias": (dim,),
                   "head.weight": (config.num_classes, dim),
                   "head.bias": (config.num_classes,)})
    return shapes


def _scale(key: str, shape: Tuple[int, ...]) -> Tuple[float, float]:
    """(mean, std) of a key's noise: LayerNorm weights near 1, Linear/Conv weights
    ~1/sqrt(fan_in), biases small, the head's bias HEAD_BIAS."""
    if key.endswith("norm1.weight") or key.endswith("norm2.weight") or key == "fc_norm.weight":
        return 1.0, 0.1
    if key == "head.bias":
        return HEAD_BIAS, 0.1
    if len(shape) == 1:
        return 0.0, 0.02
    if key == "head.weight":
        return 0.0, 1.5 / np.sqrt(shape[1])
    return 0.0, 1.0 / np.sqrt(int(np.prod(shape[1:])))


def random_state(config: vit.VitConfig, seed: int,
                 with_pos_embed: bool = False) -> Dict[str, torch.Tensor]:
    """Seeded float32 tensors under the official names; `pos_embed` (UMT's own table, not
    noise) only when asked for and the official model has it as a parameter."""
    rng = np.random.default_rng(seed)
    state = {}
    for key, shape in official_shapes(config).items():
        if key == "pos_embed":
            if with_pos_embed:
                state[key] = vit.position_table(config)
            continue
        mean, std = _scale(key, shape)
        noise = rng.standard_normal(shape, dtype=np.float32) * np.float32(std) + np.float32(mean)
        state[key] = torch.from_numpy(noise)
    return state


def write_checkpoint(path: os.PathLike, config: vit.VitConfig = TINY, seed: int = 0,
                     with_pos_embed: bool = False) -> Dict[str, torch.Tensor]:
    """`random_state` saved as the official file (flat, float16); returns what was saved."""
    state = {k: v.half() for k, v in random_state(config, seed, with_pos_embed).items()}
    torch.save(state, os.fspath(path))
    return state
