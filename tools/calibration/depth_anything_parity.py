"""Depth Anything V2 parity: worldeval's metrics/depth against the official calls under
the transformers version the official code asks for (>= 4.45, < 5), via stored numbers.

The official Geo3DConsistency code loads the snapshot with transformers'
`AutoImageProcessor` / `AutoModelForDepthEstimation` and per frame runs
`processor(images=<PIL RGB>, return_tensors="pt")` and
`model(**inputs).predicted_depth.squeeze()`. The lock holds transformers 5.x (which
worldeval's models need) and one lock cannot hold 4.x as well, so the official side ran
outside the repository (official_runs/depth_anything.py, in a scratch virtualenv with
transformers 4.57.1 and torch 2.13.0 CPU) on the checkpoint and frames that
`//tools/calibration:depth_anything_inputs` writes, and only its numbers are committed:
depth_anything_official.csv, per frame and tensor the shape, the float64 sum and sum of
squares (compared as mean and RMS) and 32 values at seeded positions, plus the clipped cosine of each consecutive
same-shape pair of min-max-normalised, L2-normalised depth maps (the official formula).

Weights: metrics.depth.tiny_checkpoint's tiny model (patch 14, 518 grid) with every
parameter moved by seeded noise of std NOISE, so that depth depends on the image
(without it consecutive frames' maps have cosine 0.999998, which shows nothing).
"""

import csv
import pathlib
import tempfile
from typing import Dict, List, Tuple

import cv2
import numpy as np
from PIL import Image
import torch
from transformers import AutoModelForDepthEstimation

from benchmarks.common import paths
from metrics.depth import depth_anything
from metrics.depth import depth_consistency
from metrics.depth import tiny_checkpoint
from tools.calibration import frames as frames_lib
from tools.calibration import parity_table

BACKEND = depth_anything.BACKEND_NAME
TEST = "//tools/calibration:depth_anything_parity_test"
OFFICIAL = "tools/calibration/depth_anything_official.csv"
SEED = 0
NOISE = 0.2
REFERENCE = ("transformers 4.57.1 (torch 2.13.0 CPU) AutoImageProcessor (slow "
             "DPTImageProcessor) + AutoModelForDepthEstimation, run outside the repository; "
             "numbers in " + OFFICIAL)


def write_checkpoint(folder) -> pathlib.Path:
    """The tiny noisy Depth Anything snapshot folder (deterministic)."""
    snapshot = tiny_checkpoint.save_tiny_depth_anything(folder, seed=SEED)
    model = AutoModelForDepthEstimation.from_pretrained(str(snapshot)).eval()
    generator = torch.Generator().manual_seed(SEED + 1)
    with torch.no_grad():
        for _, parameter in model.named_parameters():
            parameter.add_(torch.randn(parameter.shape, generator=generator) * NOISE)
    model.save_pretrained(str(snapshot))
    return snapshot


def _on_value_scale(shape: str, stat: str, value: float) -> float:
    """A sum as the mean, a sum of squares as the RMS (on the scale of the values)."""
    count = int(np.prod([int(n) for n in shape.split("x")])) if shape else 1
    return value / count if stat == "sum" else np.sqrt(value / count) if stat == "sumsq" \
        else value


def _official() -> Dict[Tuple[int, str], List[Tuple[str, str, float]]]:
    table: Dict[Tuple[int, str], List[Tuple[str, str, float]]] = {}
    with open(paths.runfile(OFFICIAL), newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            value = _on_value_scale(row["shape"], row["stat"], float(row["value"]))
            table.setdefault((int(row["frame"]), row["tensor"]), []).append(
                (row["shape"], row["stat"], value))
    return table


def _stats_like(tensor, wanted):
    """Our values of the stats listed in `wanted` (shape, stat, value) for `tensor`."""
    array = tensor.detach().cpu().double().numpy() if hasattr(tensor, "detach") else tensor
    shape = "x".join(map(str, array.shape))
    flat = array.ravel()
    out = []
    for want_shape, stat, _ in wanted:
        if want_shape != shape:
            raise ValueError(f"shape {shape}, the official run had {want_shape}")
        raw = (flat.sum() if stat == "sum" else (flat ** 2).sum() if stat == "sumsq"
               else flat[int(stat.split(":")[1])])
        out.append(_on_value_scale(shape, stat, float(raw)))
    return np.array(out)


def run() -> List[parity_table.Row]:
    frames = frames_lib.all_frames()
    official = _official()
    with tempfile.TemporaryDirectory() as tmp:
        model, processor = depth_anything.load_depth_anything(write_checkpoint(tmp), "cpu")
    pixels = [processor(images=Image.fromarray(cv2.cvtColor(f, cv2.COLOR_BGR2RGB)),
                        return_tensors="pt")["pixel_values"][0] for f in frames]
    depths = depth_anything.depth_maps(model, processor, frames, "cpu")
    common = dict(reference=REFERENCE, test=TEST, inputs=frames_lib.describe(),
                  weights=f"random (seed {SEED}): metrics/depth tiny_checkpoint + noise "
                          f"std {NOISE}")
    rows = []
    for check, name, ours in (("preprocess", "pixel_values", pixels),
                              ("features", "predicted_depth", depths)):
        theirs = [np.array([v for _, _, v in official[(i, name)]]) for i in range(len(frames))]
        mine = [_stats_like(t, official[(i, name)]) for i, t in enumerate(ours)]
        rows.append(parity_table.compare(
            BACKEND, check, mine, theirs, compared=f"{name}: shape, mean, RMS and 32 values per "
            "frame vs the official run's", **common))
    pairs = sorted(i for i, name in official if name == "pair_cosine_next")
    mine = [depth_consistency.pair_similarities([depths[i], depths[i + 1]])[0] for i in pairs]
    theirs = [official[(i, "pair_cosine_next")][0][2] for i in pairs]
    rows.append(parity_table.compare(
        BACKEND, "score", np.array(mine), np.array(theirs),
        compared="depth_consistency.pair_similarities vs the official clipped cosine of "
        "consecutive same-shape depth maps", **common))
    return rows
