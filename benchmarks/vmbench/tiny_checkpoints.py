"""Test helper: VMBench's official PAS/TCS checkpoints as tiny random models of the
official architectures, saved under the official file names in a --checkpoint_dir
layout, the tiny architectures the loaders must build for them, and the pins random
files cannot match cleared for the duration of a run."""

import contextlib
import dataclasses
import pathlib
import shutil
import tempfile

from benchmarks.vmbench import checkpoints as specs
from metrics.detection import tiny_grounding_dino
from metrics.pose import tiny_models as pose_tiny
from metrics.qalign import tiny_snapshot as qalign_tiny
from metrics.segmentation import tiny_sam2
from metrics.segmentation import tiny_sam_v1
from metrics.tracking.cotracker3 import config as cotracker_config
from metrics.tracking.cotracker3 import tiny_checkpoint as cotracker_tiny
from metrics.videomae import vit as videomae_vit

# Two queries: a few detections per frame keep SAM 2.1's per-object propagation and the
# CoTracker3 calls per vanish/emerge event cheap (the tiny default has 50).
GROUNDING_DINO = dataclasses.replace(tiny_grounding_dino.TINY, num_queries=2)
# CAS's views are 224 px; 56-px patches keep the tiny ViT at 4 x 4 x 8 tokens.
VIDEOMAE = videomae_vit.VitConfig(img_size=224, patch_size=56, embed_dim=32, depth=1,
                                  num_heads=2)
# TCS's cost is SAM 2.1's memory attention (4,096 tokens of the 1024-px frame against
# every memory frame's, per object): two memory frames instead of seven keep it cheap.
SAM2 = dataclasses.replace(tiny_sam2.TINY, num_maskmem=2)
ARCHITECTURES = {
    "grounding_dino": GROUNDING_DINO,
    "videomae": VIDEOMAE,
    "ois": {"rtmdet": pose_tiny.TINY_RTMDET, "rtmpose": pose_tiny.TINY_RTMPOSE},
    "sam_v1": tiny_sam_v1.TINY,
    "sam2": SAM2,
    "cotracker3": cotracker_config.TINY,
}


def _place(source: pathlib.Path, spec) -> pathlib.Path:
    return pathlib.Path(shutil.move(str(source), str(source.parent.parent / spec.name
                                                     / spec.filename)))


def write_videomae(ckpt: pathlib.Path) -> pathlib.Path:
    """vit_g_vmbench.pt as a fine-tuning run saves it: {"model": state_dict}, with a
    head trained-looking enough that views differ."""
    import torch  # pylint: disable=import-outside-toplevel
    model = videomae_vit.random_init(VIDEOMAE, seed=3)
    with torch.no_grad():
        model.head.weight.normal_(0, 0.5)
    path = ckpt / specs.VIT_G_CAS.name / specs.VIT_G_CAS.filename
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": model.state_dict(), "epoch": 0}, path)
    return path


def write_all(ckpt: pathlib.Path) -> pathlib.Path:
    """Writes the official files (GroundingDINO, its BERT tokenizer folder, SAM v1, SAM
    2.1, CoTracker3, VideoMAE v2, the Q-Align snapshot, RTMDet and RTMPose) under
    `ckpt`/<spec name>/;
    returns `ckpt`."""
    for spec in (*specs.PAS, specs.SAM2_1_HIERA_L):
        (ckpt / spec.name).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=ckpt) as tmp:
        dino, bert = tiny_grounding_dino.write_checkpoint(tmp, seed=0, noise=0.02,
                                                         arch=GROUNDING_DINO)
        _place(dino, specs.GROUNDING_DINO_SWINB)
        target = ckpt / specs.BERT_BASE_UNCASED.name
        for item in bert.iterdir():
            shutil.move(str(item), str(target / item.name))
        sam = tiny_sam_v1.write_checkpoint(tmp, seed=1, noise=0.02)
        shutil.move(str(sam), str(ckpt / specs.SAM_VIT_H.name / specs.SAM_VIT_H.filename))
    tiny_sam2.save_tiny_sam2(ckpt / specs.SAM2_1_HIERA_L.name / specs.SAM2_1_HIERA_L.filename,
                             config=SAM2)
    track = cotracker_tiny.save_checkpoint(ckpt / specs.COTRACKER3_OFFLINE.name)
    assert track.name == specs.COTRACKER3_OFFLINE.filename
    write_videomae(ckpt)
    qalign_tiny.write(ckpt / specs.Q_ALIGN_ONE_ALIGN.name, seed=1)
    for spec, save in ((specs.RTMDET_M_PERSON, pose_tiny.save_tiny_rtmdet),
                       (specs.RTMPOSE_M_BODY7, pose_tiny.save_tiny_rtmpose)):
        (ckpt / spec.name).mkdir(parents=True, exist_ok=True)
        save(ckpt / spec.name / spec.filename, seed=2)
    return ckpt


@contextlib.contextmanager
def pins_cleared(monkeypatch):
    """Random files cannot match the real files' sha256 pins (SAM ViT-H, BERT's vocab,
    the OpenMMLab files' digest prefixes)."""
    cleared = {name: dataclasses.replace(getattr(specs, name), sha256="")
               for name in ("SAM_VIT_H", "BERT_BASE_UNCASED", "RTMDET_M_PERSON",
                            "RTMPOSE_M_BODY7")}
    for name, spec in cleared.items():
        monkeypatch.setattr(specs, name, spec)
    monkeypatch.setattr(specs, "PAS", (specs.GROUNDING_DINO_SWINB, cleared["BERT_BASE_UNCASED"],
                                       cleared["SAM_VIT_H"], specs.COTRACKER3_OFFLINE))
    monkeypatch.setattr(specs, "TCS", (specs.GROUNDING_DINO_SWINB, cleared["BERT_BASE_UNCASED"],
                                       specs.SAM2_1_HIERA_L, specs.COTRACKER3_OFFLINE))
    monkeypatch.setattr(specs, "OIS", (cleared["RTMDET_M_PERSON"], cleared["RTMPOSE_M_BODY7"]))
    yield
