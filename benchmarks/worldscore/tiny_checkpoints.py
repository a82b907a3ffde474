"""Test helper: every checkpoint WorldScore's ten aspects load, as tiny random models of
the official architectures saved under the official file names in a --checkpoint_dir
layout; the tiny architectures the loaders must build for them; and the pins random
files cannot match, cleared for the duration of a run."""

import contextlib
import dataclasses
import pathlib

from benchmarks.worldscore import droid_slam
from benchmarks.worldscore import flow_metrics
from benchmarks.worldscore import motion_accuracy
from benchmarks.worldscore import motion_smoothness
from benchmarks.worldscore import object_control
from benchmarks.worldscore import style_consistency
from metrics.clip import aesthetic
from metrics.clip import clip_score
from metrics.clip import clipiqa
from metrics.clip import tiny_clip
from metrics.clip import tiny_clip_score
from metrics.clip import tiny_clipiqa
from metrics.detection import tiny_grounding_dino
from metrics.flow.sea_raft import config as sea_config
from metrics.flow.sea_raft import tiny_checkpoint as sea_tiny
from metrics.interpolation import vfimamba
from metrics.lpips import lpips
from metrics.lpips import tiny_lpips as lpips_random
from metrics.segmentation import tiny_sam2
from metrics.slam import tiny_droid_net
from metrics.style import tiny_vgg

# SAM 2.1 at 128 px without the hole filling (the official B+ build has none either).
SAM2 = dataclasses.replace(tiny_sam2.TINY_128, postprocessing=False, fill_hole_area=0)
ARCHITECTURES = {
    "vgg19_widths": tiny_vgg.TINY_WIDTHS,
    # the sample's 48 x 64 frames at 2**2: SEA-RAFT's 4 correlation levels need >= 128 px
    "sea_raft": sea_config.tiny(scale=2),
    "vfimamba": vfimamba.TINY,
    "sam2": SAM2,
    "grounding_dino": tiny_grounding_dino.TINY,
    "droid_net": tiny_droid_net.TINY,
    "droid_input_area": 72 * 96,  # a 9 x 12 grid of DROID features, not 512 x 512
}
# (module, attribute) of every pin a random file cannot match.
_PINNED = ((style_consistency, "VGG19"), (clipiqa, "CLIP_RN50"), (lpips, "ALEXNET_SPEC"),
           (lpips, "LPIPS_ALEX_SPEC"), (object_control, "GROUNDING_DINO_SWINT_OGC"),
           (object_control, "BERT_BASE_UNCASED"))


@contextlib.contextmanager
def pins_cleared():
    """The pins of _PINNED set to "" (any digest accepted, still recorded) meanwhile."""
    saved = [(module, name, getattr(module, name)) for module, name in _PINNED]
    try:
        for module, name, spec in saved:
            setattr(module, name, dataclasses.replace(spec, sha256=""))
        yield
    finally:
        for module, name, spec in saved:
            setattr(module, name, spec)


def _at(ckpt: pathlib.Path, spec) -> pathlib.Path:
    path = ckpt / spec.name / spec.filename
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def write_all(ckpt: pathlib.Path) -> pathlib.Path:
    """Writes VGG19, CLIP RN50 + CLIP-IQA+ prompts, CLIP ViT-L/14 + the LAION head, CLIP
    ViT-B/16, SEA-RAFT spring-M, VFIMamba + LPIPS, SAM 2.1 B+, GroundingDINO + its BERT
    folder and droid.pth under `ckpt`/<spec name>/; returns `ckpt`."""
    import torch  # pylint: disable=import-outside-toplevel
    tiny_vgg.write_vgg19(_at(ckpt, style_consistency.VGG19))
    tiny_clipiqa.write_rn50(_at(ckpt, clipiqa.CLIP_RN50), seed=4)
    tiny_clipiqa.write_prompts(_at(ckpt, clipiqa.CLIPIQA_PLUS_PROMPTS), seed=5)
    tiny_clip.write_vision_snapshot(ckpt / aesthetic.CLIP_VIT_L14.name, projection_dim=768)
    tiny_clip.write_head(_at(ckpt, aesthetic.AESTHETIC_HEAD))
    tiny_clip_score.write_snapshot(ckpt / clip_score.CLIP_VIT_B16.name)
    snapshot = ckpt / flow_metrics.SEA_RAFT_SPRING_M.name
    snapshot.mkdir(parents=True, exist_ok=True)
    (snapshot / "config.json").write_text("{}")
    sea_tiny.save(sea_tiny.seeded_state_dict(ARCHITECTURES["sea_raft"]),
                  snapshot / "model.safetensors", ARCHITECTURES["sea_raft"])
    lpips_random.write_random_checkpoints(ckpt, seed=1)
    torch.manual_seed(0)
    torch.save({"module." + k: v for k, v in vfimamba.build(vfimamba.TINY).state_dict().items()},
               _at(ckpt, motion_smoothness.VFIMAMBA))
    tiny_sam2.save_tiny_sam2(_at(ckpt, motion_accuracy.SAM2_1_HIERA_B_PLUS), config=SAM2,
                             object_bias=10.0)
    dino, bert = tiny_grounding_dino.write_checkpoint(ckpt / "_tiny_dino", noise=0.02)
    dino.rename(_at(ckpt, object_control.GROUNDING_DINO_SWINT_OGC))
    bert.rename(ckpt / object_control.BERT_BASE_UNCASED.name)
    tiny_droid_net.save_tiny(_at(ckpt, droid_slam.DROID_PTH))
    return ckpt
