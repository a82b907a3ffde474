"""LPIPS (AlexNet) parity: worldeval's metrics/lpips against the `lpips` package as the
official code builds it.

metrics/lpips runs the package's own LPIPS(net="alex") too; what it adds, and what these
rows check, is its loading (`pnet_rand=True`, the AlexNet file's tensors copied into the
package's `net.slice*`, the lin file through `model_path`) and its frame glue. The
official MemoBench code runs `lpips.LPIPS(net="alex")` on GT frames resized to the
generated frame's size (cv2 INTER_AREA) and both scaled to RGB in [-1, 1]. Here:

* the package's model is built by its own constructor. Its AlexNet trunk comes from
  torchvision's `alexnet(pretrained=True)`, which reads `alexnet-owt-7be5be79.pth` from
  the torch hub cache: a full-size AlexNet state dict with random weights (seeded, the
  classifier keys included, exactly the official file's layout) is put there, and
  torch.hub points at a temporary folder for that time. Its lin layers are the REAL
  v0.1 `alex.pth` that the package ships.
* worldeval loads the same two files through `metrics.lpips.lpips.load_lpips_alex`
  (a second package model, built without the torch hub).
* Both see the frames of tools.calibration.frames; each size's frames are paired with
  the next size's as ground truth, so every GT is resized (down and up).

Compared: the [-1, 1] tensor (ours vs the package's `im2tensor` of the RGB frame), the
five ReLU outputs of the trunk, and the per-pair distance of `lpips_distance_pairs`
(ours) vs the package's forward on the official resize and batching (16 pairs per batch,
one clip, i.e. one frame size, at a time).
"""

import importlib.metadata
import pathlib
import tempfile
from typing import List

import cv2
import lpips as lpips_pkg
import numpy as np
import torch
import torchvision

from metrics.lpips import lpips as ours
from tools.calibration import frames as frames_lib
from tools.calibration import parity_table
from tools.calibration import torch_hub

BACKEND = "lpips-v0.1-alex"
SEED = 0
BATCH = 16
TEST = "//tools/calibration:lpips_parity_test"


def reference() -> str:
    return f"lpips {importlib.metadata.version('lpips')} LPIPS(net='alex')"


def build_pair(folder: pathlib.Path):
    """(package model, our model), both on the random trunk and the shipped lin weights."""
    torch.manual_seed(SEED)
    trunk = torchvision.models.alexnet(weights=None).state_dict()
    cached = folder / "hub" / "checkpoints" / ours.ALEXNET_SPEC.filename
    cached.parent.mkdir(parents=True)
    torch.save(trunk, cached)
    with torch_hub.hub_dir(folder / "hub"):
        theirs = lpips_pkg.LPIPS(net="alex", verbose=False).eval()
    lin_path = pathlib.Path(lpips_pkg.__file__).parent / "weights" / "v0.1" / "alex.pth"
    return theirs, ours.load_lpips_alex(cached, lin_path, "cpu")


def _their_tensor(frame_bgr):
    return lpips_pkg.im2tensor(cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2RGB))


def _their_distances(model, gt_frames, gen_frames) -> List[float]:
    """The official per-pair path: INTER_AREA resize of GT to the generated size, the
    package's tensors, batches of BATCH pairs of one size."""
    out = []
    for start in range(0, len(gen_frames), BATCH):
        gens = gen_frames[start:start + BATCH]
        gts = [cv2.resize(g, (f.shape[1], f.shape[0]), interpolation=cv2.INTER_AREA)
               for g, f in zip(gt_frames[start:start + BATCH], gens)]
        with torch.no_grad():
            d = model(torch.cat([_their_tensor(g) for g in gts]),
                      torch.cat([_their_tensor(f) for f in gens]))
        out.extend(float(v) for v in d.flatten())
    return out


def run() -> List[parity_table.Row]:
    """The three rows of this backend (see the module docstring)."""
    clips = frames_lib.frames_by_size()
    frames = [f for clip in clips for f in clip]
    common = dict(reference=reference(), inputs=frames_lib.describe(), test=TEST,
                  weights=f"random AlexNet trunk (seed {SEED}); real: alex.pth v0.1 lin "
                          "layers (shipped in the package)")
    with tempfile.TemporaryDirectory() as tmp:
        theirs, model = build_pair(pathlib.Path(tmp))
    rows = []
    ours_t = [ours._to_tensor(clip) for clip in clips]  # pylint: disable=protected-access
    theirs_t = [torch.cat([_their_tensor(f) for f in clip]) for clip in clips]
    rows.append(parity_table.compare(
        BACKEND, "preprocess", ours_t, theirs_t, compared="BGR frame -> RGB [-1, 1] tensor "
        "vs lpips.im2tensor(cv2 BGR2RGB)", **common))
    mine, official = [], []
    with torch.no_grad():
        for batch in theirs_t:
            mine.extend(model.trunk_features(batch))
            official.extend(theirs.net.forward(theirs.scaling_layer(batch)))
    rows.append(parity_table.compare(
        BACKEND, "features", mine, list(official),
        compared="scaling layer + AlexNet relu1..relu5 outputs", **common))
    gt_clips = clips[1:] + clips[:1]  # the next size is the GT
    gt = [f for clip in gt_clips for f in clip]
    official = [d for gt_clip, clip in zip(gt_clips, clips)  # a clip has one frame size
                for d in _their_distances(theirs, list(gt_clip), list(clip))]
    rows.append(parity_table.compare(
        BACKEND, "score", np.array(ours.lpips_distance_pairs(model, gt, frames, BATCH)),
        np.array(official),
        compared="lpips_distance_pairs vs LPIPS forward on INTER_AREA-resized GT, "
        "batches of 16 per clip", **common))
    return rows
