"""Tiny random checkpoints in the official file formats, for MiraBench's model tests.

DINO: a timm ViT state dict (the official dino_vitbase16_pretrain.pth keys) at TINY_DINO
sizes. LAION head: the v1 nn.Linear(768, 1) state dict (`weight`, `bias`). MUSIQ: a
pyiqa MUSIQ state dict (musiq_spaq_ckpt keys) at TINY_MUSIQ sizes. CLIP snapshots
come from metrics.clip.tiny_clip; RAFT files from metrics.flow.tiny_raft_things;
AMT-S files from metrics.frame_interpolation.tiny_amt (the full-size AMT-S, 3.0M
parameters, ~12 MB: AMT-S has no size knobs, so its tests keep the frames small instead).
`write_all` writes every file of checkpoints.ALL in a --checkpoint_dir layout, and
ARCHITECTURES are the tiny architectures the loaders must then build.
"""

import pathlib

import torch

from benchmarks.mirabench import checkpoints as ckpts
from metrics.clip import tiny_clip
from metrics.dino import vit
from metrics.flow import tiny_raft_things
from metrics.frame_interpolation import tiny_amt
from metrics.i3d import inception_i3d
from metrics.iqa import tiny_musiq
from metrics.tracking.cotracker2 import config as cotracker2_config
from metrics.tracking.cotracker2 import tiny_checkpoint as cotracker2_tiny
from metrics.viclip import tiny_checkpoint as viclip_tiny

TINY_DINO = vit.DinoConfig(embed_dim=32, depth=2, num_heads=2, image_size=64)
TINY_MUSIQ = tiny_musiq.TINY


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


def write_musiq(path, seed: int = 7) -> None:
    """torch.saves a random pyiqa MUSIQ state dict (official key names, TINY_MUSIQ sizes)."""
    tiny_musiq.write_checkpoint(path, TINY_MUSIQ, seed=seed)


I3D_WIDTH_DIVISOR = 64
ARCHITECTURES = {
    "dino": TINY_DINO,
    "musiq": TINY_MUSIQ,
    "cotracker2": cotracker2_config.TINY,
    "viclip": viclip_tiny.TINY,
    "i3d_width_divisor": I3D_WIDTH_DIVISOR,
}


def _write_i3d(path: pathlib.Path) -> None:
    """A tiny I3D whose logits depend on its input: with PyTorch's default init the signal
    fades through its ~60 layers and every clip gets the same logits (FVD 0 whatever the
    videos), so the convolutions get He-normal weights and the BatchNorms positive biases
    (ReLUs stay alive): two different clips then differ by ~1e-2 in their logits."""
    torch.manual_seed(5)
    model = inception_i3d.InceptionI3d(400, width_divisor=I3D_WIDTH_DIVISOR)
    with torch.no_grad():
        for name, param in model.named_parameters():
            if name.endswith("conv3d.weight"):
                torch.nn.init.kaiming_normal_(param, nonlinearity="relu")
            elif name.endswith("bn.bias"):
                param.uniform_(0.1, 0.5)
    for name, buf in model.named_buffers():
        if name.endswith("running_var"):  # BatchNorm statistics that matter
            buf.uniform_(0.5, 1.5)
    torch.save(model.state_dict(), path)


def write_all(root: pathlib.Path) -> pathlib.Path:
    """Writes every file of checkpoints.ALL under `root`/<spec name>/; returns `root`."""
    folder = {s.name: root / s.name for s in ckpts.ALL}
    for path in folder.values():
        path.mkdir(parents=True, exist_ok=True)
    write_dino(folder[ckpts.DINO_VITB16.name] / ckpts.DINO_VITB16.filename)
    tiny_clip.write_vision_snapshot(folder[ckpts.CLIP_VIT_B32.name], projection_dim=512,
                                        seed=1)
    tiny_clip.write_vision_snapshot(folder[ckpts.CLIP_VIT_L14.name], projection_dim=768,
                                        seed=2)
    write_linear_head(folder[ckpts.LAION_AESTHETIC_LINEAR.name]
                                  / ckpts.LAION_AESTHETIC_LINEAR.filename)
    tiny_raft_things.write_official_file(folder[ckpts.RAFT_THINGS.name]
                                            / ckpts.RAFT_THINGS.filename)
    tiny_amt.write_official_file(folder[ckpts.AMT_S.name] / ckpts.AMT_S.filename, seed=7)
    write_musiq(folder[ckpts.MUSIQ_SPAQ.name] / ckpts.MUSIQ_SPAQ.filename)
    cotracker2_tiny.save_checkpoint(folder[ckpts.COTRACKER2.name], seed=5)
    viclip_tiny.write_checkpoint(folder[ckpts.VICLIP.name] / ckpts.VICLIP.filename, seed=6)
    viclip_tiny.write_bpe(folder[ckpts.CLIP_BPE.name] / ckpts.CLIP_BPE.filename)
    _write_i3d(folder[ckpts.I3D_400.name] / ckpts.I3D_400.filename)
    return root
