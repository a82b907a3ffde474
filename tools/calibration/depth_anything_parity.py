"""Depth Anything V2 parity: worldeval's metrics/depth against the official calls under
the transformers version the official code asks for (>= 4.45, < 5), via stored numbers.

The official Geo3DConsistency code loads the snapshot with transformers'
`AutoImageProcessor` / `AutoModelForDepthEstimation` and per frame runs
`processor(images=<PIL RGB>, return_tensors="pt")` and
`model(**inputs).predicted_depth.squeeze()`. The lock holds transformers 5.x (which
worldeval's models need) and one lock cannot hold 4.x as well, so the official side ran
outside the repository (official_runs/depth_anything.py, in a scratch virtualenv with
transformers 4.57.1 and torch 2.13.0 CPU) on the checkpoint and frames that
`//tools/calibration:official_run_inputs` writes, and only its numbers are committed:
depth_anything_official.csv, per frame and tensor the shape, the float64 sum and sum of
squares (compared as mean and RMS) and 32 values at seeded positions, plus the
clipped cosine of each consecutive
same-shape pair of min-max-normalised, L2-normalised depth maps (the official formula).

Weights: metrics.depth.tiny_checkpoint's tiny model (patch 14, 518 grid) with every
parameter moved by seeded noise of std NOISE, so that depth depends on the image
(without it consecutive frames' maps have cosine 0.999998, which shows nothing).
"""

import pathlib
import tempfile
from typing import List

import cv2
import numpy as np
from PIL import Image
import torch
from transformers import AutoModelForDepthEstimation

from metrics.depth import depth_anything
from metrics.depth import depth_consistency
from metrics.depth import tiny_checkpoint
from tools.calibration import frames as frames_lib
from tools.calibration import official_numbers
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


def run() -> List[parity_table.Row]:
    frames = frames_lib.all_frames()
    official = official_numbers.read(OFFICIAL)
    with tempfile.TemporaryDirectory() as tmp:
        model, processor = depth_anything.load_depth_anything(write_checkpoint(tmp), "cpu")
    pixels = [processor(images=Image.fromarray(cv2.cvtColor(f, cv2.COLOR_BGR2RGB)),
                        return_tensors="pt")["pixel_values"][0] for f in frames]
    depths = depth_anything.depth_maps(model, processor, frames, "cpu")
    common = dict(reference=REFERENCE, test=TEST, inputs=frames_lib.describe(),
                  weights=f"random (seed {SEED}): metrics/depth tiny_checkpoint + noise "
                          f"std {NOISE}")
    rows = [official_numbers.compare_tensors(BACKEND, check, name, ours, official, what,
                                             **common)
            for check, name, ours, what in (
                ("preprocess", "pixel_values", pixels, "the PIL-backend processor"),
                ("features", "predicted_depth", depths, "depth_anything.depth_maps"))]
    pairs = sorted(i for i, name in official if name == "pair_cosine_next")
    mine = [depth_consistency.pair_similarities([depths[i], depths[i + 1]])[0] for i in pairs]
    theirs = [official[(i, "pair_cosine_next")][0][2] for i in pairs]
    rows.append(parity_table.compare(
        BACKEND, "score", np.array(mine), np.array(theirs),
        compared="depth_consistency.pair_similarities vs the official clipped cosine of "
        "consecutive same-shape depth maps", **common))
    return rows
