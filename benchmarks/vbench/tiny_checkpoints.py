"""Tiny random checkpoints in the official file formats, for VBench's runner tests.

Every file of checkpoints.ALL in a --checkpoint_dir layout (<root>/<spec name>/<file>):
DINO at the tiny DINO sizes, a full tiny CLIP snapshot for ViT-B/32 (image and text
towers: background_consistency and appearance_style read the same snapshot), a tiny
vision snapshot for ViT-L/14 and the LAION linear head, RAFT-things, AMT-S (full size:
AMT-S has no size knobs), MUSIQ and ViCLIP at tiny sizes, and the tiny BPE vocabulary
both text towers read. ARCHITECTURES are the tiny architectures the loaders must build.
"""

import pathlib

from benchmarks.vbench import checkpoints as ckpts
from benchmarks.vbench.dimensions import fixtures
from metrics.flow import tiny_raft_things
from metrics.frame_interpolation import tiny_amt
from metrics.iqa import tiny_musiq
from metrics.viclip import tiny_checkpoint as viclip_tiny

ARCHITECTURES = {
    "dino": fixtures.TINY_DINO,
    "musiq": tiny_musiq.TINY,
    "viclip": viclip_tiny.TINY,
}


def write_all(root: pathlib.Path) -> pathlib.Path:
    """Writes every file of checkpoints.ALL under `root`/<spec name>/; returns `root`."""
    folder = {s.name: root / s.name for s in ckpts.ALL}
    for path in folder.values():
        path.mkdir(parents=True, exist_ok=True)
    dino, = ckpts.SUBJECT_CONSISTENCY
    fixtures.write_dino(folder[dino.name] / dino.filename)
    clip_b32, bpe = ckpts.APPEARANCE_STYLE
    fixtures.write_clip_full(folder[clip_b32.name], seed=4)
    clip_l14, head = ckpts.AESTHETIC_QUALITY
    fixtures.write_clip_vision(folder[clip_l14.name], projection_dim=768, seed=2)
    fixtures.write_linear_head(folder[head.name] / head.filename)
    raft, = ckpts.DYNAMIC_DEGREE
    tiny_raft_things.write_official_file(folder[raft.name] / raft.filename)
    amt_s, = ckpts.MOTION_SMOOTHNESS
    tiny_amt.write_official_file(folder[amt_s.name] / amt_s.filename, seed=7)
    musiq_spaq, = ckpts.IMAGING_QUALITY
    tiny_musiq.write_checkpoint(folder[musiq_spaq.name] / musiq_spaq.filename,
                                tiny_musiq.TINY, seed=7)
    viclip, _ = ckpts.VICLIP
    viclip_tiny.write_checkpoint(folder[viclip.name] / viclip.filename, seed=6)
    fixtures.write_bpe(folder[bpe.name] / bpe.filename)
    return root
