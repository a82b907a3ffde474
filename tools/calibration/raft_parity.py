"""RAFT-large parity: worldeval's metrics/flow against torchvision's raft_large as the
official MemoBench code builds it, on identical (random, full-size) weights.

The official code calls `raft_large(weights=Raft_Large_Weights.DEFAULT)`; torchvision
then reads `raft_large_C_T_SKHT_V2-ff5fadd5.pth` from the torch hub cache. A full-size
random state dict of the architecture (seeded: the exact key names and shapes of the
official file) is put there, torch.hub points at a temporary folder meanwhile, and
worldeval loads the same file through `metrics.flow.raft.load_raft`.

Compared on consecutive frame pairs of tools.calibration.frames (an odd size, so the
replicate padding to a multiple of 8 and the crop back are exercised):

* preprocess: `metrics.flow.tensors.to_unit_rgb` vs torchvision's `to_tensor` of the
  RGB PIL image (the official `_to_tensor`);
* features: the flows of `RaftFlow` (batched) vs the official per-pair call (replicate
  pad bottom/right to a multiple of 8, last prediction cropped; the glue is the
  upstream code's, MemoBench temporal.py @f4edb0c, written out here);
* score: `metrics.flow.warp_error.warp_errors` vs a float64 numpy evaluation of the
  official warp error (bilinear sampling of frame 1 at x + flow with coordinates
  clamped to the border, mean absolute difference to frame 2) on the official flows.
"""

import importlib.metadata
import pathlib
import tempfile
from typing import List

import cv2
import numpy as np
from PIL import Image
import torch
import torch.nn.functional as F
from torchvision.models.optical_flow import Raft_Large_Weights
from torchvision.models.optical_flow import raft_large
from torchvision.transforms import functional as tvf

from metrics.flow import raft
from metrics.flow import tensors
from metrics.flow import warp_error
from tools.calibration import frames as frames_lib
from tools.calibration import parity_table
from tools.calibration import torch_hub

BACKEND = raft.BACKEND_NAME
TEST = "//tools/calibration:raft_parity_test"
SEED = 0
SIZE_INDICES = (2,)  # 427x239: not a multiple of 8 (RAFT needs >= 128; CPU time)


def reference() -> str:
    return (f"torchvision {importlib.metadata.version('torchvision')} raft_large(weights="
            "Raft_Large_Weights.DEFAULT); per-pair glue of MemoBench temporal.py @f4edb0c "
            "written out")


def build_pair(folder: pathlib.Path):
    """(torchvision's model through its own weight loading, ours through load_raft)."""
    torch.manual_seed(SEED)
    state = raft.build_raft_large().state_dict()
    cached = folder / "hub" / "checkpoints" / raft.RAFT_LARGE.filename
    cached.parent.mkdir(parents=True)
    torch.save(state, cached)
    with torch_hub.hub_dir(folder / "hub"):
        theirs = raft_large(weights=Raft_Large_Weights.DEFAULT).eval()
    if any(not torch.equal(v, state[k]) for k, v in theirs.state_dict().items()):
        raise AssertionError(f"torchvision did not load {cached} from the hub cache")
    return theirs, raft.load_raft(cached, "cpu")


def _their_tensor(frame_bgr) -> torch.Tensor:
    return tvf.to_tensor(Image.fromarray(cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2RGB)))[None]


def _their_flow(model, t1, t2) -> torch.Tensor:
    height, width = t1.shape[-2:]
    pad = [0, (8 - width % 8) % 8, 0, (8 - height % 8) % 8]
    with torch.no_grad():
        flow = model(F.pad(t1, pad, mode="replicate"), F.pad(t2, pad, mode="replicate"))[-1]
    return flow[:, :, :height, :width]


def _numpy_warp_error(t1, t2, flow) -> float:
    img1 = t1[0].double().numpy()
    img2 = t2[0].double().numpy()
    u, v = flow[0].double().numpy()
    height, width = u.shape
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float64)
    x = np.clip(xs + u, 0, width - 1)
    y = np.clip(ys + v, 0, height - 1)
    x0 = np.floor(x).astype(int)
    y0 = np.floor(y).astype(int)
    x1, y1 = np.minimum(x0 + 1, width - 1), np.minimum(y0 + 1, height - 1)
    fx, fy = x - x0, y - y0
    warped = (img1[:, y0, x0] * (1 - fx) * (1 - fy) + img1[:, y0, x1] * fx * (1 - fy)
              + img1[:, y1, x0] * (1 - fx) * fy + img1[:, y1, x1] * fx * fy)
    return float(np.mean(np.abs(warped - img2)))


def run() -> List[parity_table.Row]:
    clips = [frames_lib.frames_by_size()[i] for i in SIZE_INDICES]
    h_w = ", ".join(f"{c.shape[2]}x{c.shape[1]}" for c in clips)
    common = dict(reference=reference(), test=TEST,
                  weights=f"random (seed {SEED}), full-size raft_large state dict",
                  inputs=f"{sum(len(c) - 1 for c in clips)} consecutive pairs of "
                         f"tools.calibration frames (seed {frames_lib.SEED}) at {h_w}")
    with tempfile.TemporaryDirectory() as tmp:
        theirs, model = build_pair(pathlib.Path(tmp))
    flow_fn = raft.RaftFlow(model, "cpu")
    rows_in = {"preprocess": ([], []), "features": ([], []), "score": ([], [])}
    for clip in clips:
        pairs = list(zip(clip[:-1], clip[1:]))
        mine_flows = flow_fn(pairs)
        images1 = tensors.to_unit_rgb(np.stack([a for a, _ in pairs]))
        images2 = tensors.to_unit_rgb(np.stack([b for _, b in pairs]))
        mine_errors = warp_error.warp_errors(images1, images2, mine_flows)
        for k, (a, b) in enumerate(pairs):
            t1, t2 = _their_tensor(a), _their_tensor(b)
            official_flow = _their_flow(theirs, t1, t2)
            rows_in["preprocess"][0].extend([images1[k], images2[k]])
            rows_in["preprocess"][1].extend([t1[0], t2[0]])
            rows_in["features"][0].append(mine_flows[k])
            rows_in["features"][1].append(official_flow[0])
            rows_in["score"][0].append(np.array(mine_errors[k]))
            rows_in["score"][1].append(np.array(_numpy_warp_error(t1, t2, official_flow)))
    compared = {
        "preprocess": "tensors.to_unit_rgb vs to_tensor(PIL RGB)",
        "features": "RaftFlow flows (batched) vs the official padded per-pair call",
        "score": "warp_error.warp_errors vs the official warp error (float64 numpy)"}
    return [parity_table.compare(BACKEND, check, ours, theirs_, compared=compared[check],
                                 **common)
            for check, (ours, theirs_) in rows_in.items()]
