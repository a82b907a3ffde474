"""Tiny random checkpoints in the official file formats, for MiraBench's model tests.

DINO: a timm ViT state dict (the official dino_vitbase16_pretrain.pth keys) at TINY_DINO
sizes. LAION head: the v1 nn.Linear(768, 1) state dict (`weight`, `bias`). CLIP snapshots
come from metrics.clip.random_models; RAFT files from metrics.flow.raft_things_testing;
AMT-S files from metrics.frame_interpolation.amt_testing (the full-size AMT-S, 3.0M
parameters, ~12 MB: AMT-S has no size knobs, so its tests keep the frames small instead).
"""

import torch

from metrics.dino import vit

TINY_DINO = vit.DinoConfig(embed_dim=32, depth=2, num_heads=2, image_size=64)


def write_dino(path, seed: int = 3, config: vit.DinoConfig = TINY_DINO) -> None:
    """torch.saves a random DINO ViT state dict (official key names) to `path`."""
    torch.manual_seed(seed)
    torch.save(vit.build_vit(config).state_dict(), str(path))


def write_linear_head(path, seed: int = 5, bias: float = 5.0) -> dict:
    """torch.saves a random LAION v1 linear head (768 -> 1) to `path`; returns it."""
    head = {"weight": torch.randn(1, 768, generator=torch.Generator().manual_seed(seed)),
            "bias": torch.tensor([bias])}
    torch.save(head, str(path))
    return head
