"""CLIPScore parity: worldeval's metrics/clip clip_score against torchmetrics' CLIPScore,
via stored numbers (torchmetrics is not in the lock).

WorldScore's content_alignment calls `CLIPScore("openai/clip-vit-base-patch16")(img,
text)` per anchor frame. torchmetrics 1.9.0 ran outside the repository
(official_runs/torchmetrics_clip_score.py) on the tiny random CLIP snapshot and frames
that `//tools/calibration:official_run_inputs -- --only=gram,clip_score` writes, through its
`model_name_or_path` callable (the snapshot's CLIPModel and CLIPProcessor). With the
locked transformers 5.18, torchmetrics 1.9.0 fails (`get_image_features` returns an
output object, which it normalises as a tensor: AttributeError), so the WorldScore code
would score every instance with the -100 fallback there; the official run therefore
wraps the model so that the two feature getters return `pooler_output`, the tensor
transformers 4.x returned. Compared per frame (as CHW uint8, with each of TEXTS): the
processor's pixel_values (torchmetrics' images-only call vs ours, images with text),
the normalised image features, and the clamped score.
"""

import pathlib
import tempfile
from typing import List

import numpy as np
import torch

from metrics.clip import clip_score
from metrics.clip import tiny_clip_score
from tools.calibration import frames as frames_lib
from tools.calibration import official_numbers
from tools.calibration import parity_table

BACKEND = "torchmetrics-clipscore-vit-b16"
TEST = "//tools/calibration:clip_score_parity_test"
OFFICIAL = "tools/calibration/torchmetrics_clip_score_official.csv"
SEED = 0
SNAPSHOT = "clip_score_tiny"
TEXTS = ("a red ball", "textured walls " * 12)  # the second is truncated
REFERENCE = ("torchmetrics 1.9.0 CLIPScore (transformers 5.18 with get_*_features "
             "returning pooler_output, as in 4.x), run outside the repository; numbers in "
             + OFFICIAL)


def write_inputs(folder) -> pathlib.Path:
    folder = pathlib.Path(folder)
    tiny_clip_score.write_snapshot(folder / SNAPSHOT, seed=SEED)
    return folder


def chw(frame_bgr: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(frame_bgr[..., ::-1])).permute(2, 0, 1)


def run() -> List[parity_table.Row]:
    frames = frames_lib.all_frames()
    official = official_numbers.read(OFFICIAL)
    with tempfile.TemporaryDirectory() as tmp:
        model = clip_score.load_clip_score(write_inputs(tmp) / SNAPSHOT, "cpu")
    pixels, features, scores, theirs = [], [], [], []
    for i, frame in enumerate(frames):
        image = chw(frame)
        inputs = model.processor(text=[TEXTS[0]], images=[image], return_tensors="pt",
                                 padding=True)
        pixels.append(inputs["pixel_values"][0])
        with torch.no_grad():
            feats = model.model.get_image_features(inputs["pixel_values"]).pooler_output
        features.append((feats / feats.norm(p=2, dim=-1, keepdim=True))[0])
        for k, text in enumerate(TEXTS):
            scores.append(clip_score.clip_score(model, image, text))
            theirs.append(official[(i, f"score_{k}")][0][2])
    common = dict(reference=REFERENCE, test=TEST, inputs=frames_lib.describe(),
                  weights=f"random (seed {SEED}): metrics/clip tiny_clip_score snapshot")
    rows = [official_numbers.compare_tensors(BACKEND, check, name, ours, official, what,
                                             **common)
            for check, name, ours, what in (
                ("preprocess", "pixel_values", pixels, "CLIPProcessor on the CHW uint8 frame"),
                ("features", "image_features", features, "normalised get_image_features"))]
    rows.append(parity_table.compare(
        BACKEND, "score", np.array(scores), np.array(theirs),
        compared="clip_score.clip_score vs CLIPScore(img, text) per frame and text", **common))
    return rows
