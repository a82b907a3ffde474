"""Seeded random FULL-SIZE weights for every network of VBench's ten computed dimensions, in
the layout our runner reads (--checkpoint_dir) and, for the side-by-side timing, in the
layout the official `vbench` 0.1.5 reads ($VBENCH_CACHE_DIR in local mode, plus torch's hub
cache for DINO), the two holding the same values.

    ./bazelw run //tools/bench:vbench_weights -- --output_dir=/tmp/w --seed=7 [--official]

Ours: <output_dir>/ours/<spec name>/<file> (resolver.py's --checkpoint_dir layout; the specs
of benchmarks/vbench/checkpoints.py):
  dino_vitb16/dino_vitbase16_pretrain.pth      DINO's backbone state dict (float32)
  clip_vit_base_patch32/                        transformers CLIPModel snapshot, both towers
  clip_vit_large_patch14/                       its vision tower only (all aesthetic reads)
  laion_aesthetic_linear_l14/sa_0_4_vit_l_14_linear.pth   nn.Linear(768, 1)
  musiq_spaq/musiq_spaq_ckpt-358bb6af.pth       pyiqa's MUSIQ-SPAQ state dict
  amt_s/amt-s.pth                               {'epoch', 'state_dict'} as AMT's trainer saves
  raft_things/raft-things.pth                   RAFT's state dict
  viclip_internvid_10m_flt/ViClip-InternVid-10M-FLT.pth   {'model': state_dict}
  clip_bpe_vocab/bpe_simple_vocab_16e6.txt.gz   the real CLIP BPE file (open_clip's copy):
                                                a vocabulary, not weights
Official (--official): <output_dir>/official/vbench_cache/ as vbench/utils.py:236-372 names
the files (clip_model/ViT-B-32.pt and ViT-L-14.pt as TorchScript archives of the float16
values, which `clip.load(path)` reads; aesthetic_model/emb_reader/, amt_model/,
raft_model/models/, pyiqa_model/, ViCLIP/ with the BPE file, dino_model/) and
<output_dir>/official/torch_home/hub/checkpoints/dino_vitbase16_pretrain.pth (the hub
model's load_state_dict_from_url reads it there; set TORCH_HOME). Files both sides read in
the same format are hard links. The DINO hub code (dino_model/facebookresearch_dino_main)
is not weights: the caller puts a checkout there.

CLIP and DINO values are tools/calibration/vbench_weights' (float16-representable CLIP, as
OpenAI's files); AMT, RAFT and MUSIQ those of the metrics' own writers at full size; ViCLIP
is drawn here by parameter name with the same scales as CLIP. Seeds: `seed` for CLIP, then
seed+1 .. seed+6 for DINO, the head, AMT, RAFT, MUSIQ, ViCLIP. No network.
"""

import os
import pathlib
import shutil
from typing import Dict

import numpy as np
import torch

from benchmarks.vbench import checkpoints as ckpts
from metrics.flow import tiny_raft_things
from metrics.frame_interpolation import tiny_amt
from metrics.iqa import musiq
from metrics.iqa import tiny_musiq
from metrics.viclip import loader as viclip_loader
from metrics.viclip import model as viclip_model
from tools.calibration import vbench_weights as clip_dino

OFFICIAL_CACHE = "official/vbench_cache"
OFFICIAL_TORCH_HOME = "official/torch_home"
DINO_HUB_CODE = "dino_model/facebookresearch_dino_main"


def _tensors(state: Dict[str, np.ndarray]) -> Dict[str, torch.Tensor]:
    return {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in state.items()}


def viclip_state(seed: int) -> Dict[str, torch.Tensor]:
    """Every parameter of the full-size ViCLIP-L/14, drawn per name (clip_dino.seeded's
    scales; the temperature `temp` kept at its 0.01 init, as the released file holds a
    scalar there too)."""
    shapes = {k: tuple(v.shape) for k, v in
              viclip_model.ViClip(viclip_model.VICLIP_L14).state_dict().items()}
    state = {}
    for name, shape in shapes.items():
        if name == "temp":
            state[name] = torch.tensor(0.01)
            continue
        state[name] = torch.from_numpy(clip_dino.seeded(name, shape, seed))
    return state


def write_torchscript(state: Dict[str, np.ndarray], path: pathlib.Path) -> None:
    """The tensors as a TorchScript archive of float16 parameters: the format of OpenAI's
    ViT-*.pt, which clip.load(path, jit=False) reads through torch.jit.load(...).state_dict()."""
    root = torch.nn.Module()
    for name, value in state.items():
        *parents, leaf = name.split(".")
        module = root
        for part in parents:
            if not hasattr(module, part):
                module.add_module(part, torch.nn.Module())
            module = getattr(module, part)
        module.register_parameter(leaf, torch.nn.Parameter(
            torch.from_numpy(value).half(), requires_grad=False))
    root.forward = lambda x: x
    torch.jit.save(torch.jit.trace(root, torch.zeros(1), check_trace=False), str(path))


def _bpe_source() -> pathlib.Path:
    import open_clip  # pylint: disable=import-outside-toplevel
    found = pathlib.Path(open_clip.__file__).parent / "bpe_simple_vocab_16e6.txt.gz"
    if not found.is_file():
        raise FileNotFoundError(f"open_clip ships no {found.name} at {found.parent}")
    return found


def write_ours(root, seed: int) -> Dict[str, pathlib.Path]:
    """Every file of benchmarks/vbench/checkpoints.ALL under `root`/<spec name>/; returns
    {spec name: file or snapshot folder}."""
    root = pathlib.Path(root)
    folder = {s.name: root / s.name for s in ckpts.ALL}
    for path in folder.values():
        path.mkdir(parents=True, exist_ok=True)
    out = {}
    dino, = ckpts.SUBJECT_CONSISTENCY
    out[dino.name] = folder[dino.name] / dino.filename
    torch.save(_tensors(clip_dino.dino_state(seed + 1)), out[dino.name])
    clip_b32, bpe = ckpts.APPEARANCE_STYLE
    out[clip_b32.name] = clip_dino.write_hf_snapshot(
        folder[clip_b32.name], clip_dino.VIT_B32, clip_dino.clip_state(clip_dino.VIT_B32,
                                                                       seed=seed))
    clip_l14, head = ckpts.AESTHETIC_QUALITY
    out[clip_l14.name] = clip_dino.write_hf_snapshot(
        folder[clip_l14.name], clip_dino.VIT_L14,
        clip_dino.clip_state(clip_dino.VIT_L14, towers=("visual",), seed=seed))
    out[head.name] = folder[head.name] / head.filename
    torch.save(_tensors(clip_dino.head_state(seed + 2)), out[head.name])
    amt_s, = ckpts.MOTION_SMOOTHNESS
    out[amt_s.name] = folder[amt_s.name] / amt_s.filename
    tiny_amt.write_official_file(out[amt_s.name], seed=seed + 3)
    raft, = ckpts.DYNAMIC_DEGREE
    out[raft.name] = folder[raft.name] / raft.filename
    tiny_raft_things.write_official_file(out[raft.name], seed=seed + 4)
    spaq, = ckpts.IMAGING_QUALITY
    out[spaq.name] = folder[spaq.name] / spaq.filename
    tiny_musiq.write_checkpoint(out[spaq.name], musiq.SPAQ, seed=seed + 5)
    viclip, _ = ckpts.VICLIP
    out[viclip.name] = folder[viclip.name] / viclip.filename
    torch.save({viclip_loader.MODEL_KEY: viclip_state(seed + 6)}, out[viclip.name])
    out[bpe.name] = folder[bpe.name] / bpe.filename
    shutil.copyfile(_bpe_source(), out[bpe.name])
    return out


def _link(source: pathlib.Path, target: pathlib.Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        target.unlink()
    try:
        os.link(source, target)
    except OSError:  # another file system
        shutil.copyfile(source, target)


def write_official(output_dir, ours: Dict[str, pathlib.Path], seed: int) -> pathlib.Path:
    """The official local-mode layout of the same values (module docstring); returns the
    folder to use as VBENCH_CACHE_DIR."""
    output_dir = pathlib.Path(output_dir)
    cache = output_dir / OFFICIAL_CACHE
    (cache / "clip_model").mkdir(parents=True, exist_ok=True)
    write_torchscript(clip_dino.clip_state(clip_dino.VIT_B32, seed=seed),
                      cache / "clip_model" / "ViT-B-32.pt")
    write_torchscript(clip_dino.clip_state(clip_dino.VIT_L14, seed=seed),
                      cache / "clip_model" / "ViT-L-14.pt")
    dino, = ckpts.SUBJECT_CONSISTENCY
    _link(ours[dino.name], output_dir / OFFICIAL_TORCH_HOME / "hub" / "checkpoints"
          / dino.filename)
    # Local mode only checks that dino_model/<file> exists (utils.py:311); the hub model
    # reads the hub cache's copy.
    _link(ours[dino.name], cache / "dino_model" / dino.filename)
    shared = {  # spec name -> path under the cache (vbench/utils.py:236-372)
        ckpts.AESTHETIC_QUALITY[1].name: "aesthetic_model/emb_reader",
        ckpts.MOTION_SMOOTHNESS[0].name: "amt_model",
        ckpts.DYNAMIC_DEGREE[0].name: "raft_model/models",
        ckpts.IMAGING_QUALITY[0].name: "pyiqa_model",
        ckpts.VICLIP[0].name: "ViCLIP",
        ckpts.VICLIP[1].name: "ViCLIP",
    }
    for name, sub in shared.items():
        _link(ours[name], cache / sub / ours[name].name)
    return cache


def main(argv) -> None:
    # pylint: disable=import-outside-toplevel
    from absl import flags
    del argv
    out = pathlib.Path(os.environ.get("BUILD_WORKING_DIRECTORY", os.getcwd()),
                       flags.FLAGS.output_dir)
    ours = write_ours(out / "ours", flags.FLAGS.seed)
    print(f"ours (--checkpoint_dir): {out / 'ours'}")
    if flags.FLAGS.official:
        cache = write_official(out, ours, flags.FLAGS.seed)
        print(f"official: VBENCH_CACHE_DIR={cache} TORCH_HOME={out / OFFICIAL_TORCH_HOME} "
              f"(put facebookresearch/dino's hubconf.py, vision_transformer.py and utils.py "
              f"in {cache / DINO_HUB_CODE})")


if __name__ == "__main__":
    from absl import app
    from absl import flags as absl_flags
    absl_flags.DEFINE_string("output_dir", None, "Where to write (created).", required=True)
    absl_flags.DEFINE_integer("seed", 20261208, "The seed of the whole set.")
    absl_flags.DEFINE_boolean("official", False, "Also the official layout (module docstring).")
    app.run(main)
