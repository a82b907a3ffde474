"""The official side of the VGG19 Gram-matrix parity check; runs OUTSIDE the repository.

WorldScore's gram_matrix_metrics.py imports its package's BaseMetric (whose package
__init__ pulls pyiqa, DROID-SLAM, SEA-RAFT, ...), so the file runs in a scratch
virtualenv on the locked torch/torchvision wheels (2026-12-01):

    python3.11 -m venv /tmp/ws2-venv    # base.pth: the worktree's locked site folders
                                        # (torch, torchvision, numpy, pillow, nvidia_*)
    git --git-dir=<mirror of haoyi-duan/WorldScore> show \
        344983c1be7d515c1e4ecb167d40d622adf502bc:worldscore/benchmark/metrics/third_party/gram_matrix_metrics.py \
        > /tmp/ws2_official/gram_matrix_metrics.py
    bazel run //tools/calibration:official_run_inputs -- --only=gram,clip_score --output_dir=/tmp/gram_in
    /tmp/ws2-venv/bin/python tools/calibration/official_runs/worldscore_gram.py \
        /tmp/ws2_official/gram_matrix_metrics.py /tmp/gram_in tools/calibration

The official file is imported unchanged. `worldscore.benchmark.metrics.base_metrics` is
registered beforehand as a stand-in module whose BaseMetric only sets `_device = "cpu"`
(all GramMatrixMetric uses of it). The file is imported twice: as is (no CUDA here:
imsize 128) and with `torch.cuda.is_available` answering True during the import
(imsize 512, the leaderboard's GPU setting; nothing else in the file reads it). A
GramMatrixMetric is made without its __init__ (which would download VGG19's weights)
and given what __init__ sets, with the tiny VGG19 `features` (torchvision's
make_layers of configuration "E" at gram_parity's widths, loaded from the file our tool
wrote) in place of vgg19(weights=DEFAULT).features. Written per size: the loader's
tensor of each frame (image_loader), its conv_1..conv_5 Gram matrices (the StyleLoss
targets of get_style_model_and_losses) and the pair score of _compute_scores(frame i,
[frame i+1]).
"""

import csv
import importlib.util
import pathlib
import sys
import types

import numpy as np
import torch
from torchvision.models import vgg as tv_vgg

WIDTHS = {64: 4, 128: 6, 256: 8, 512: 8}  # metrics/style/tiny_vgg.py TINY_WIDTHS
CFG_E = [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M",
         512, 512, 512, 512, "M"]


def _stand_in_base_metrics():
    class BaseMetric:  # what GramMatrixMetric uses of the official BaseMetric
        def __init__(self):
            self._device = "cpu"

    for name in ("worldscore", "worldscore.benchmark", "worldscore.benchmark.metrics"):
        module = types.ModuleType(name)
        module.__path__ = []
        sys.modules[name] = module
    base = types.ModuleType("worldscore.benchmark.metrics.base_metrics")
    base.BaseMetric = BaseMetric
    sys.modules[base.__name__] = base


def _import(path, name, cuda: bool):
    real = torch.cuda.is_available
    torch.cuda.is_available = lambda: cuda
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        torch.cuda.is_available = real
    return module


def _features(inputs: pathlib.Path):
    cnn = tv_vgg.make_layers([v if v == "M" else WIDTHS[v] for v in CFG_E], batch_norm=False)
    state = torch.load(inputs / "vgg19_tiny_features.pth", weights_only=True)
    cnn.load_state_dict({k[len("features."):]: v for k, v in state.items()
                         if k.startswith("features.")})
    return cnn.eval()


def main(official_file, inputs, out_dir):
    inputs, out_dir = pathlib.Path(inputs), pathlib.Path(out_dir)
    _stand_in_base_metrics()
    frames = sorted((inputs / "gram_frames").glob("*.png"))
    for size, cuda in ((128, False), (512, True)):
        mod = _import(official_file, f"gram_official_{size}", cuda)
        assert mod.imsize == size, (mod.imsize, size)
        metric = object.__new__(mod.GramMatrixMetric)
        metric._device = "cpu"  # pylint: disable=protected-access
        metric._model = _features(inputs)  # pylint: disable=protected-access
        metric._normalization_mean = mod.normalization_mean  # pylint: disable=protected-access
        metric._normalization_std = mod.normalization_std  # pylint: disable=protected-access
        metric._style_layers_default = mod.style_layers_default  # pylint: disable=protected-access
        rng, rows = np.random.default_rng(1234), []

        def stats(i, name, t):
            flat = t.astype(np.float64).ravel()
            shape = "x".join(map(str, t.shape))
            rows.append((i, name, shape, "sum", repr(float(flat.sum()))))
            rows.append((i, name, shape, "sumsq", repr(float((flat ** 2).sum()))))
            for k in sorted(rng.choice(flat.size, min(32, flat.size), replace=False)):
                rows.append((i, name, shape, f"at:{k}", repr(float(flat[k]))))

        with torch.no_grad():
            for i, path in enumerate(frames):
                img = mod.image_loader(str(path), "cpu")
                stats(i, "loaded", img[0].numpy())
                _, losses = mod.get_style_model_and_losses(
                    metric._model, mod.normalization_mean, mod.normalization_std, img, img,  # pylint: disable=protected-access
                    mod.style_layers_default)
                stats(i, "grams", torch.cat([sl.target.flatten() for sl in losses]).numpy())
                score = metric._compute_scores(str(path), [str(frames[(i + 1) % len(frames)])])  # pylint: disable=protected-access
                rows.append((i, "style_score", "", "value", repr(float(score))))
        out = out_dir / f"worldscore_gram_official_{size}.csv"
        with open(out, "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh, lineterminator="\n")
            writer.writerow(("frame", "tensor", "shape", "stat", "value"))
            writer.writerows(rows)
        print(f"{out}: {len(rows)} rows, torch {torch.__version__}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
