"""Test helper: every checkpoint MiraBench's model metrics load, as random models of the
official architectures (tiny where the architecture has sizes, full size where it has
none: RAFT, AMT-S) saved under the official file names in a --checkpoint_dir layout, and
the tiny architectures the loaders must build for them."""

import pathlib

import torch

from benchmarks.mirabench import checkpoints as ckpts
from benchmarks.mirabench.model_metrics import tiny_models
from metrics.clip import random_models
from metrics.flow import raft_things_testing
from metrics.frame_interpolation import amt_testing
from metrics.i3d import inception_i3d
from metrics.tracking.cotracker2 import config as cotracker2_config
from metrics.tracking.cotracker2 import tiny_checkpoint as cotracker2_tiny
from metrics.viclip import tiny_checkpoint as viclip_tiny

I3D_WIDTH_DIVISOR = 64
ARCHITECTURES = {
    "dino": tiny_models.TINY_DINO,
    "musiq": tiny_models.TINY_MUSIQ,
    "cotracker2": cotracker2_config.TINY,
    "viclip": viclip_tiny.TINY,
    "i3d_width_divisor": I3D_WIDTH_DIVISOR,
}


def _write_i3d(path: pathlib.Path) -> None:
    torch.manual_seed(5)
    model = inception_i3d.InceptionI3d(400, width_divisor=I3D_WIDTH_DIVISOR)
    for name, buf in model.named_buffers():
        if name.endswith("running_var"):  # BatchNorm statistics that matter
            buf.uniform_(0.5, 1.5)
    torch.save(model.state_dict(), path)


def write_all(root: pathlib.Path) -> pathlib.Path:
    """Writes every file of checkpoints.ALL under `root`/<spec name>/; returns `root`."""
    folder = {s.name: root / s.name for s in ckpts.ALL}
    for path in folder.values():
        path.mkdir(parents=True, exist_ok=True)
    tiny_models.write_dino(folder[ckpts.DINO_VITB16.name] / ckpts.DINO_VITB16.filename)
    random_models.write_vision_snapshot(folder[ckpts.CLIP_VIT_B32.name], projection_dim=512,
                                        seed=1)
    random_models.write_vision_snapshot(folder[ckpts.CLIP_VIT_L14.name], projection_dim=768,
                                        seed=2)
    tiny_models.write_linear_head(folder[ckpts.LAION_AESTHETIC_LINEAR.name]
                                  / ckpts.LAION_AESTHETIC_LINEAR.filename)
    raft_things_testing.write_official_file(folder[ckpts.RAFT_THINGS.name]
                                            / ckpts.RAFT_THINGS.filename)
    amt_testing.write_official_file(folder[ckpts.AMT_S.name] / ckpts.AMT_S.filename, seed=7)
    tiny_models.write_musiq(folder[ckpts.MUSIQ_SPAQ.name] / ckpts.MUSIQ_SPAQ.filename)
    cotracker2_tiny.save_checkpoint(folder[ckpts.COTRACKER2.name], seed=5)
    viclip_tiny.write_checkpoint(folder[ckpts.VICLIP.name] / ckpts.VICLIP.filename, seed=6)
    viclip_tiny.write_bpe(folder[ckpts.CLIP_BPE.name] / ckpts.CLIP_BPE.filename)
    _write_i3d(folder[ckpts.I3D_400.name] / ckpts.I3D_400.filename)
    return root
