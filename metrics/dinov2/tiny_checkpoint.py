"""Test support: a tiny random DINOv2 saved in the real snapshot layout.

The model keeps dinov2-base's patch size (14) and position grid (518 px = 37x37),
with hidden size 32 and 2 layers, so it loads and runs like the real one in a blink.
"""

import pathlib

import torch
from transformers import Dinov2Config, Dinov2Model

from metrics.dinov2 import backbone

HIDDEN_SIZE = 32


def tiny_config(image_size: int = 518) -> Dinov2Config:
    return Dinov2Config(hidden_size=HIDDEN_SIZE, num_hidden_layers=2, num_attention_heads=2,
                        mlp_ratio=2, patch_size=14, image_size=image_size)


def save_tiny_dinov2(checkpoint_dir, image_size: int = 518, seed: int = 0) -> pathlib.Path:
    """Saves a random tiny Dinov2Model as <checkpoint_dir>/dinov2_base; returns that folder.

    The position table is drawn from N(0, 1) (not the init's 0.02 scale) so that
    resampling differences are visible in tests.
    """
    torch.manual_seed(seed)
    model = Dinov2Model(tiny_config(image_size)).eval()
    with torch.no_grad():
        model.embeddings.position_embeddings.normal_()
    folder = pathlib.Path(checkpoint_dir) / backbone.DINOV2_BASE.name
    model.save_pretrained(str(folder))
    return folder
