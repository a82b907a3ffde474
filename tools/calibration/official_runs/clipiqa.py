"""The official side of the CLIP-IQA+ parity check; runs OUTSIDE the repository.

pyiqa cannot be locked (it requires openai-clip, which has no wheel), so this ran in a
scratch virtualenv (2026-12-01):

    python3.11 -m venv /tmp/iqa
    /tmp/iqa/bin/pip install --only-binary=:all: torch==2.14.1 torchvision==0.29.1 \
        "numpy<2.4" pillow opencv-python-headless ftfy regex wcwidth tqdm packaging \
        "setuptools<81" requests huggingface_hub   # clip imports pkg_resources
    /tmp/iqa/bin/pip install --no-deps pyiqa==0.1.16 clip-anytorch==2.6.0
    bazel run //tools/calibration:official_run_inputs -- --output_dir=/tmp/parity_in
    /tmp/iqa/bin/python tools/calibration/official_runs/clipiqa.py /tmp/parity_in \
        tools/calibration/clipiqa_official.csv

pyiqa's package __init__ imports every metric's dependencies (datasets, facexlib, ...);
only the CLIP-IQA architecture is needed, so the `pyiqa` and `pyiqa.archs` packages are
registered without running their __init__ and `pyiqa.archs.clipiqa_arch` is imported
as is. The network is built as create_metric("clipiqa+") builds it, except that
`backbone` is the tiny RN50.pt (pyiqa's clip loader takes a file path) and the learned
context is assigned from the tiny prompts file exactly where `pretrained=True` assigns
the official one. Per frame, the input is ToTensor of the RGB PIL frame (the official
ImageQuality code); InferenceModel's range check and deterministic cuDNN flags change
nothing on the CPU.
"""

import csv
import importlib.util
import pathlib
import sys
import types

import cv2
import numpy as np
from PIL import Image
import torch
from torchvision import transforms


def _bare_package(name, folder):
    module = types.ModuleType(name)
    module.__path__ = [str(folder)]
    sys.modules[name] = module


def main(inputs, out_path):
    root = pathlib.Path(importlib.util.find_spec("pyiqa").submodule_search_locations[0])
    _bare_package("pyiqa", root)
    _bare_package("pyiqa.archs", root / "archs")
    from pyiqa.archs.clipiqa_arch import CLIPIQA  # pylint: disable=import-outside-toplevel
    inputs = pathlib.Path(inputs)
    net = CLIPIQA(model_type="clipiqa+", backbone=str(inputs / "RN50.pt"), pretrained=False)
    net.prompt_learner.ctx.data = torch.load(inputs / "CLIP-IQA+_learned_prompts-603f3273.pth",
                                             weights_only=False)
    net.eval()
    frames = np.load(inputs / "frames.npy", allow_pickle=True)
    rng = np.random.default_rng(1234)
    rows = []

    def stats(i, name, t):
        flat = t.astype(np.float64).ravel()
        shape = "x".join(map(str, t.shape))
        rows.append((i, name, shape, "sum", repr(float(flat.sum()))))
        rows.append((i, name, shape, "sumsq", repr(float((flat ** 2).sum()))))
        for k in sorted(rng.choice(flat.size, min(32, flat.size), replace=False)):
            rows.append((i, name, shape, f"at:{k}", repr(float(flat[k]))))

    clip_model = net.clip_model[0]
    with torch.no_grad():
        for i, frame in enumerate(frames):
            t = transforms.ToTensor()(Image.fromarray(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB)))
            t = t.unsqueeze(0)
            x = (t - net.default_mean.to(t)) / net.default_std.to(t)
            stats(i, "normalized_input", x[0].numpy())
            stats(i, "image_features", clip_model.visual(x, pos_embedding=False)[0].numpy())
            rows.append((i, "probability", "", "value", repr(float(net(t).item()))))
    with open(out_path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(("frame", "tensor", "shape", "stat", "value"))
        writer.writerows(rows)
    print(f"{len(rows)} rows, torch {torch.__version__}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
