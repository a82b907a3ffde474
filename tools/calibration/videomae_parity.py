"""VideoMAE v2 ViT-g/14 classifier parity: worldeval's metrics/videomae (views, ViT,
checkpoint loader, per-view softmax) against the official VideoMAE v2 code VMBench vendors,
via stored numbers.

The official side (official_runs/videomae.py, outside the repository: VMBench c278a73's
VideoMAEv2/ and bench_utils/cas_utils.py on sys.path, timm 0.4.12, the locked torch
2.14.1) builds `VisionTransformer` with vit_giant_patch14_224's settings and the CAS
script's arguments at a tiny width, loads the checkpoint file this module writes (the
official layout under "model") with the official `utils.load_state_dict`, makes the 30 test
views of each clip with the official `VideoClsDataset(mode="test")` (only decord's decode
replaced by the stored RGB frames), and scores them with the official `final_test` (per-view
logits written as text) and `final_merge` (scipy softmax, mean over views, expected rating).
Stored (videomae_official.csv), per clip: the views (shape, sum, sum of squares, 256 seeded
values), every logit, the mean softmax and the CAS value; and the logits of the official
constructor's random initialisation (seed SEED), which vit.random_init must reproduce; and
what run_class_finetuning's own --finetune block makes of a second file (learned_prefixed_state),
which load_videomae_classifier must equal.
"""

import dataclasses
import pathlib
import tempfile
from typing import List

import numpy as np
import torch

from metrics.videomae import classifier
from metrics.videomae import views as views_lib
from metrics.videomae import vit
from tools.calibration import official_numbers
from tools.calibration import parity_table
from tools.fixtures import scene

BACKEND = classifier.BACKEND_NAME
TEST = "//tools/calibration:videomae_parity_test"
OFFICIAL = "tools/calibration/videomae_official.csv"
CHECKPOINT = "videomae_tiny.pt"
LEARNED_CHECKPOINT = "videomae_tiny_learned_prefixed.pt"
CLIPS = "videomae_clips.npz"
SEED = 0
NOISE = 0.2
WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0)
# vit_giant_patch14_224 (patch 14, mlp 48/11, qkv bias, LayerNorm eps 1e-6) at 224 px and
# 16 frames, shrunk in width and depth only.
TINY = vit.VitConfig(embed_dim=32, depth=2, num_heads=4)
TINY_LEARNED = dataclasses.replace(TINY, learnable_pos_embed=True)
# (frames, height, width, texture seed): 69 landscape frames give 18 sampled indices and
# temporal starts 0/1/2; 21 portrait frames give 6 indices padded to 16.
CLIP_SPECS = ((69, 97, 131, 21), (21, 131, 97, 22))
REFERENCE = ("VMBench c278a73 VideoMAEv2 VisionTransformer (vit_giant_patch14_224 settings, "
             "tiny width) + VideoClsDataset test views + cas_utils final_test/final_merge, "
             "timm 0.4.12, torch 2.14.1 CPU, run outside the repository; numbers in "
             + OFFICIAL)


def clips_rgb() -> List[np.ndarray]:
    """The clips both sides see, (T, H, W, 3) uint8 RGB."""
    return [np.ascontiguousarray(scene.render_clip(n, h, w, seed)[0][..., ::-1])
            for n, h, w, seed in CLIP_SPECS]


def describe_inputs() -> str:
    return ("clips of the //tools/fixtures room: " + ", ".join(
        f"{n} frames {w}x{h} (seed {s})" for n, h, w, s in CLIP_SPECS) +
        "; the 30 test views of each")


def tiny_weights() -> vit.VideoClassifierViT:
    """vit.random_init(TINY, SEED) plus Gaussian noise (std NOISE) on every tensor, so that
    the head is not near zero and the logits depend on the clip."""
    model = vit.random_init(TINY, SEED)
    generator = torch.Generator().manual_seed(SEED + 1)
    with torch.no_grad():
        for _, parameter in model.named_parameters():
            parameter.add_(torch.randn(parameter.shape, generator=generator) * NOISE)
    return model


def learned_prefixed_state() -> dict:
    """The loader check's file content: TINY_LEARNED weights (noise as tiny_weights) with a
    learned 12 x 12 (168 px) position table, under "module", keys `_orig_mod.backbone.*`."""
    model = vit.random_init(TINY_LEARNED, SEED + 2)
    generator = torch.Generator().manual_seed(SEED + 3)
    state = {k: v + torch.randn(v.shape, generator=generator) * NOISE
             for k, v in model.state_dict().items() if k != "pos_embed"}
    state["pos_embed"] = torch.randn((1, 8 * 12 * 12, TINY.embed_dim), generator=generator)
    return {"module": {"_orig_mod.backbone." + k: v for k, v in state.items()}, "epoch": 0}


def write_inputs(folder) -> pathlib.Path:
    """The checkpoint in the official layout ({"model": state dict}), the loader check's
    file and the RGB clips."""
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    torch.save({"model": tiny_weights().state_dict(), "epoch": 0}, folder / CHECKPOINT)
    torch.save(learned_prefixed_state(), folder / LEARNED_CHECKPOINT)
    np.savez(folder / CLIPS, **{f"clip_{i}": c for i, c in enumerate(clips_rgb())})
    return folder / CHECKPOINT


def run() -> List[parity_table.Row]:
    official = official_numbers.read(OFFICIAL)
    with tempfile.TemporaryDirectory() as tmp:
        model = classifier.load_videomae_classifier(write_inputs(tmp), "cpu", TINY)
    views, logits, means, ratings = [], [], [], []
    for clip in clips_rgb():
        v = views_lib.views(clip)
        views.append(v)
        logits.append(model.logits(v))
        means.append(model.probabilities(v).mean(0))
        ratings.append(views_lib.expected_rating(means[-1], WEIGHTS))
    common = dict(reference=REFERENCE, test=TEST, inputs=describe_inputs(),
                  weights=f"random (seed {SEED}): vit.random_init + noise std {NOISE}")
    rows = [_tensor_row(check, name, ours, official, what, **common)
            for check, name, ours, what in (
                ("preprocess", "views", views, "views.views, 256 seeded values"),
                ("features", "logits", logits, "Classifier.logits, all 30 x 5 values"))]
    theirs = [official[(i, name)][0][2] if name == "cas" else
              np.array([x for _, _, x in official[(i, name)]])
              for name in ("mean_softmax", "cas") for i in range(len(views))]
    rows.append(parity_table.compare(
        BACKEND, "score", np.concatenate(means + [np.array(ratings)]),
        np.concatenate(theirs[:len(views)] + [np.array(theirs[len(views):])]),
        compared="mean over the 30 views of Classifier.probabilities, and "
        "views.expected_rating (weights 0..1 by 0.25) vs the official final_merge's CAS",
        **common))
    return rows


def _tensor_row(check, name, ours, official, what, **common) -> parity_table.Row:
    theirs = [np.array([v for _, _, v in official[(i, name)]]) for i in range(len(ours))]
    mine = [official_numbers.stats_like(t, official[(i, name)]) for i, t in enumerate(ours)]
    return parity_table.compare(
        BACKEND, check, mine, theirs, compared=f"{name} ({what}): shape, mean, RMS and the "
        "values per clip vs the official run's", **common)
