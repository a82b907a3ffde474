"""Test support: a tiny random SAM v1 saved as the official checkpoint file (a state dict).

The package's own `_build_sam` (the builder behind `sam_model_registry`) with a tiny
image encoder (32 wide, 2 blocks, the second global) and the full-size prompt encoder
and mask decoder; `torch.save(sam.state_dict())` is the format of sam_vit_h_4b8939.pth.
"""

import pathlib

import torch
from segment_anything.build_sam import _build_sam  # pylint: disable=protected-access

TINY = dict(encoder_embed_dim=32, encoder_depth=2, encoder_num_heads=2,
            encoder_global_attn_indexes=[1])
CHECKPOINT = "sam_tiny.pth"


def write_checkpoint(folder, seed: int = 0, noise: float = 0.0) -> pathlib.Path:
    """<folder>/sam_tiny.pth: a seeded random tiny SAM (plus Gaussian noise of std `noise`)."""
    torch.manual_seed(seed)
    sam = _build_sam(**TINY)
    state = sam.state_dict()
    if noise:
        generator = torch.Generator().manual_seed(seed + 1)
        state = {k: v + torch.randn(v.shape, generator=generator) * noise
                 if v.is_floating_point() and not k.startswith("pixel_") else v
                 for k, v in state.items()}
    path = pathlib.Path(folder) / CHECKPOINT
    torch.save(state, str(path))
    return path
