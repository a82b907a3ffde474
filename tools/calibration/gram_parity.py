"""VGG19 Gram-matrix style distance parity: worldeval's style_consistency against
WorldScore's own `third_party/gram_matrix_metrics.py`, via stored numbers.

The official module needs WorldScore's package (whose metrics __init__ imports pyiqa,
DROID-SLAM, ...), so it ran outside the repository (official_runs/worldscore_gram.py:
the file from haoyi-duan/WorldScore@344983c imported as is, its BaseMetric import
served by a stand-in; torch 2.14.1 / torchvision 0.29.1 as locked) on the inputs
`write_inputs` makes: the frames of tools.calibration.frames saved as RGB PNGs and a
narrow random VGG19 `features` (metrics.style.tiny_vgg) as torchvision's state dict
file. Both sizes of the official `imsize` rule ran: 128 (no CUDA) as is, and 512 with
`torch.cuda.is_available` answering True while the module is imported, which is
exactly what its module-level `imsize = 512 if torch.cuda.is_available() else 128`
reads. Per image, compared: the loader's tensor (`image_loader`), the Gram matrices of
conv_1..conv_5 (the StyleLoss targets of `get_style_model_and_losses`) and, per pair
(reference frame i, generated frame i+1), the score of `GramMatrixMetric._compute_scores`
(the tiny features in place of vgg19(weights=DEFAULT).features).

Tolerance at 512: the Gram entries are float32 sums over 512 x ~900 pixels, and the
style distance a difference of them. On the CPU of the official run (AVX2) ours was
bit-equal (0); on an AMD EPYC with AVX-512, where oneDNN picks other convolution
kernels, the same code differs from the stored numbers by 8.9e-5 (Grams) and 2.1e-4
(scores), relative. Those rows are bounded by FLOAT32_SUMS_TOLERANCE (a wrong layer,
ReLU or normalisation moves them by orders of magnitude more); 128 stays at 1e-5.
"""

import pathlib
import tempfile
from typing import List

import numpy as np
from PIL import Image
import torch

from benchmarks.worldscore import style_consistency
from metrics.style import gram
from metrics.style import tiny_vgg
from tools.calibration import frames as frames_lib
from tools.calibration import official_numbers
from tools.calibration import parity_table

TEST = "//tools/calibration:gram_parity_test"
OFFICIAL = "tools/calibration/worldscore_gram_official_{size}.csv"
SEED = 0
FEATURES_FILE = "vgg19_tiny_features.pth"
FLOAT32_SUMS_TOLERANCE = 1e-3
REFERENCE = ("WorldScore 344983c third_party/gram_matrix_metrics.py (torch 2.14.1, "
             "torchvision 0.29.1), run outside the repository; numbers in ")


def frame_path(folder: pathlib.Path, i: int) -> pathlib.Path:
    return folder / "gram_frames" / f"{i:03d}.png"


def write_inputs(folder) -> pathlib.Path:
    """The tiny VGG19 file and the frames as PNGs under `folder`; returns folder."""
    folder = pathlib.Path(folder)
    tiny_vgg.write_vgg19(folder / FEATURES_FILE, seed=SEED)
    for i, frame in enumerate(frames_lib.all_frames()):
        frame_path(folder, i).parent.mkdir(parents=True, exist_ok=True)
        Image.fromarray(np.ascontiguousarray(frame[..., ::-1])).save(frame_path(folder, i))
    return folder


def _ours(folder: pathlib.Path, size: int):
    features = gram.load_features(folder / FEATURES_FILE, "cpu", tiny_vgg.TINY_WIDTHS)
    count = len(frames_lib.all_frames())
    tensors, grams = [], []
    for i in range(count):
        with Image.open(frame_path(folder, i)) as image:
            tensors.append(style_consistency.load_tensor(image.convert("RGB"), size))
        grams.append(torch.cat([g.flatten() for g in gram.style_grams(features, tensors[-1])]))
    scores = [gram.style_distance(features, tensors[i], tensors[(i + 1) % count])
              for i in range(count)]
    return tensors, grams, scores


def run_size(size: int) -> List[parity_table.Row]:
    backend = style_consistency.backend(size).name
    official_file = OFFICIAL.format(size=size)
    official = official_numbers.read(official_file)
    with tempfile.TemporaryDirectory() as tmp:
        tensors, grams, scores = _ours(write_inputs(tmp), size)
    big = size == style_consistency.OFFICIAL_SIZE
    tolerance = FLOAT32_SUMS_TOLERANCE if big else parity_table.DEFAULT_TOLERANCE
    common = dict(reference=REFERENCE + official_file, test=TEST,
                  inputs=frames_lib.describe() + ", saved as RGB PNG",
                  weights=f"random (seed {SEED}): metrics/style tiny_vgg VGG19 features")
    rows = [official_numbers.compare_tensors(
        backend, check, name, ours, official, what, **common, tolerance=bound)
        for check, name, ours, what, bound in (
            ("preprocess", "loaded", [t[0] for t in tensors],
             f"Resize({size}) + ToTensor of the PNG", parity_table.DEFAULT_TOLERANCE),
            ("features", "grams", grams, "Gram matrices of conv_1..conv_5, pre-ReLU",
             tolerance))]
    theirs = [official[(i, "style_score")][0][2] for i in range(len(scores))]
    rows.append(parity_table.compare(
        backend, "score", np.array(scores), np.array(theirs),
        compared="gram.style_distance vs GramMatrixMetric._compute_scores per pair", **common,
        tolerance=tolerance))
    return rows


def run() -> List[parity_table.Row]:
    return run_size(style_consistency.OFFICIAL_SIZE) + run_size(style_consistency.CPU_SIZE)
