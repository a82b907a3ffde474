"""UMT's fine-tuning ViT (video classifier), the network of UMT's Kinetics checkpoints.

The official module: Vchitect/VBench@45e79ec vbench/third_party/umt/models/
modeling_finetune.py (OpenGVLab/unmasked_teacher's single_modality fine-tuning model),
`vit_large_patch16_224` = VisionTransformer(patch 16, embed 1024, depth 24, 16 heads, MLP
ratio 4, qkv_bias True, LayerNorm eps 1e-6). Read and described here:

  The blocks, patch embedding and head compute the same function, under the same
  parameter names, as VideoMAE v2's fine-tuning ViT (metrics/videomae/vit.py, reused):
  Conv3d patch embedding (kernel = stride = (tubelet, 16, 16)); pre-norm blocks whose
  attention is one bias-free qkv Linear plus q_bias and v_bias (k bias zero), q scaled by
  head_dim ** -0.5; exact-GELU MLP; no layer scale (`init_values` stays 0: the caller's
  `init_scale` only scales the head's initial weights); mean over the tokens, fc_norm,
  fc_dropout (Identity at rate 0), head. Dropout and drop-path are off in eval.

  The position table is UMT's own (`get_sinusoid_encoding_table(num_patches, dim,
  frames // tubelet, pre_n_position)`): the sine-cosine table of the PRE-TRAINING layout,
  8 frames x g0 x g0 positions (g0 = 14, or 16 at patch size 14: pre_n_position 1568 /
  2048), computed in float64 and cast to float32, then
    - when a frame's token count differs from g0^2: each of the 8 frame grids resized
      bicubically (align_corners False) to the model's grid;
    - when the model's frames differ from 8: every (row, column, channel) series of 8
      resized linearly (align_corners False) to the model's frame count.
  When the result's length differs from pre_n_position the official code returns it as
  an nn.Parameter (it prints "Use learnable position embedding"), so it is in the
  model's state dict; else a plain tensor attribute, not in the state dict. VBench's
  model (16 frames, tubelet 1, 14 x 14 grid) takes the temporal branch only: 3136
  positions, a parameter. It is added detached in the tokens' dtype.
"""

import dataclasses

import torch
from torch.nn import functional as F

from metrics.videomae import vit as videomae_vit

VitConfig = videomae_vit.VitConfig
UmtViT = videomae_vit.VideoClassifierViT

CHECKPOINT_FRAMES = 8  # the pre-training clips' frames (tubelet 1) behind the table

# vit_large_patch16_224 with VBench's create_model arguments (human_action.py:46-61):
# 400 classes, all_frames 16, tubelet 1, fixed table (use_learnable_pos_emb False), mean
# pooling, init_scale 0.001 (initialisation only); drop_path 0.2 does nothing at eval.
# `learnable_pos_embed` is True because the interpolated table is a parameter.
UMT_L16_K400 = VitConfig(img_size=224, patch_size=16, embed_dim=1024, depth=24, num_heads=16,
                         mlp_ratio=4.0, num_classes=400, frames=16, tubelet_size=1,
                         learnable_pos_embed=True, init_scale=0.001, norm_eps=1e-6)


def checkpoint_grid(patch_size: int) -> int:
    """g0 of the pre-training table: 16 at patch size 14 (pre_n_position 2048), else 14."""
    return 16 if patch_size == 14 else 14


def table_is_parameter(config: VitConfig) -> bool:
    """Whether the official model holds its table as a parameter (in the state dict)."""
    g0 = checkpoint_grid(config.patch_size)
    return config.num_patches != CHECKPOINT_FRAMES * g0 * g0


def position_table(config: VitConfig) -> torch.Tensor:
    """(1, num_patches, embed_dim) float32: UMT's table for `config` (module doc)."""
    g0, dim = checkpoint_grid(config.patch_size), config.embed_dim
    steps = config.frames // config.tubelet_size
    table = videomae_vit.sinusoid_table(CHECKPOINT_FRAMES * g0 * g0, dim)
    grid = g0
    if config.num_patches // steps != g0 * g0:
        grid = int((config.num_patches // steps) ** 0.5)
        frames = table.reshape(CHECKPOINT_FRAMES, g0, g0, dim).permute(0, 3, 1, 2)
        frames = F.interpolate(frames, size=(grid, grid), mode="bicubic", align_corners=False)
        table = frames.permute(0, 2, 3, 1).reshape(1, -1, dim)
    if steps != CHECKPOINT_FRAMES:
        series = table.reshape(CHECKPOINT_FRAMES, grid, grid, dim).permute(1, 2, 3, 0)
        series = F.interpolate(series.reshape(grid * grid, dim, CHECKPOINT_FRAMES), size=steps,
                               mode="linear", align_corners=False)
        table = series.reshape(grid, grid, dim, steps).permute(3, 0, 1, 2).reshape(1, -1, dim)
    return table.contiguous()


def build(config: VitConfig = UMT_L16_K400) -> UmtViT:
    """The official constructor's network for `config` with UMT's position table; the other
    weights are as torch initialises them (a loader overwrites them). `config`'s
    learnable_pos_embed must say what the official model does (table_is_parameter)."""
    if config.learnable_pos_embed != table_is_parameter(config):
        raise ValueError(f"learnable_pos_embed must be {table_is_parameter(config)} for "
                         f"{config.num_patches} positions: that is where the official model "
                         "keeps its table")
    model = UmtViT(config)
    with torch.no_grad():
        table = position_table(config)
        if config.learnable_pos_embed:
            model.pos_embed.copy_(table)
        else:  # the non-persistent buffer, with UMT's (possibly resampled) values
            model.pos_embed = table
    return model.eval()


def with_size(config: VitConfig, **changes) -> VitConfig:
    """`config` with `changes`, learnable_pos_embed following table_is_parameter."""
    changed = dataclasses.replace(config, **changes)
    return dataclasses.replace(changed, learnable_pos_embed=table_is_parameter(changed))
