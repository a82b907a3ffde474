"""CLIP-IQA+ parity: worldeval's metrics/clip clipiqa against pyiqa's CLIPIQA, via stored
numbers (pyiqa cannot be locked: it requires `openai-clip`, which has no wheel).

The official ImageQuality code runs `pyiqa.create_metric("clipiqa+")` on
`ToTensor()(PIL RGB frame)[None]`; for a 4-D tensor pyiqa's InferenceModel only checks
the range and calls the network (`CLIPIQA(model_type="clipiqa+", backbone="RN50")`) under
deterministic cuDNN flags. That network ran outside the repository
(official_runs/clipiqa.py: pyiqa 0.1.16 with clip-anytorch 2.6.0 providing `clip`, torch
2.14.1 / torchvision 0.29.1 as locked, in a scratch virtualenv) with `backbone` = the tiny
random OpenAI-format RN50.pt and the learned context put where `pretrained=True` puts
the official file's, on the checkpoints and frames `//tools/calibration:
official_run_inputs` writes; only its numbers are committed (clipiqa_official.csv, the
same format as depth_anything_official.csv: per frame and tensor the shape, sum, sum of
squares and 32 seeded values of the normalised input and of the image features, and the
output probability).

Weights: metrics.clip.tiny_clipiqa (OpenAI's CLIP-ResNet at narrow widths, float16-
rounded TorchScript file as OpenAI ships RN50.pt; a learned context in pyiqa's format).
"""

import pathlib
import tempfile
from typing import List

import numpy as np
import torch

from metrics.clip import clipiqa
from metrics.clip import openai_clip
from metrics.clip import tiny_clipiqa
from tools.calibration import frames as frames_lib
from tools.calibration import official_numbers
from tools.calibration import parity_table

BACKEND = "clipiqa+-rn50"
TEST = "//tools/calibration:clipiqa_parity_test"
OFFICIAL = "tools/calibration/clipiqa_official.csv"
SEED = 0
REFERENCE = ("pyiqa 0.1.16 CLIPIQA(model_type='clipiqa+') with clip-anytorch 2.6.0 (torch "
             "2.14.1), run outside the repository; numbers in " + OFFICIAL)


def write_checkpoints(folder) -> pathlib.Path:
    """RN50.pt and the learned prompts file under `folder` (deterministic); returns folder."""
    folder = pathlib.Path(folder)
    tiny_clipiqa.write_rn50(folder / "RN50.pt", seed=SEED)
    tiny_clipiqa.write_prompts(folder / clipiqa.CLIPIQA_PLUS_PROMPTS.filename, seed=SEED)
    return folder


def run() -> List[parity_table.Row]:
    frames = frames_lib.all_frames()
    official = official_numbers.read(OFFICIAL)
    with tempfile.TemporaryDirectory() as tmp:
        folder = write_checkpoints(tmp)
        model = clipiqa.load_clipiqa(folder / "RN50.pt",
                                     folder / clipiqa.CLIPIQA_PLUS_PROMPTS.filename, "cpu")
    inputs, features = [], []
    with torch.no_grad():
        for frame in frames:
            x = clipiqa.normalize(clipiqa.frames_to_pixels([frame]))
            inputs.append(x[0])
            features.append(openai_clip.image_features(model.clip, x)[0])
    scores = [s for clip in frames_lib.frames_by_size()  # one frame size per call
              for s in clipiqa.frame_scores(list(clip), model)]
    common = dict(reference=REFERENCE, test=TEST, inputs=frames_lib.describe(),
                  weights=f"random (seed {SEED}): metrics/clip tiny_clipiqa RN50 + prompts")
    rows = [official_numbers.compare_tensors(
        BACKEND, check, name, ours, official, what, **common)
        for check, name, ours, what in (
            ("preprocess", "normalized_input", inputs, "frames_to_pixels + normalize"),
            ("features", "image_features", features, "clip.visual (no positional embedding)"))]
    theirs = [official[(i, "probability")][0][2] for i in range(len(frames))]
    rows.append(parity_table.compare(
        BACKEND, "score", np.array(scores), np.array(theirs),
        compared="clipiqa.frame_scores vs CLIPIQA.forward per frame", **common))
    return rows
