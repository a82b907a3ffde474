"""The official side of the SEA-RAFT parity check; runs OUTSIDE the repository.

WorldScore's three flow metrics (haoyi-duan/WorldScore @344983c,
worldscore/benchmark/metrics/third_party/: flow_aepe_metrics.py, flow_metrics.py,
motion_accuracy_metrics.py, and the SEA-RAFT @f41d0a7 copy they vendor) are GitHub
code, not registry packages. How sea_raft_official.csv was produced (2026-12-01), in a
virtualenv of the locked wheels Bazel installed (torch 2.14.1+cu130 on a CPU-only machine,
torchvision 0.29.1, numpy, opencv-python, pillow, huggingface_hub; nothing pip-installed):

    python3.11 -m venv /tmp/ws3-venv
    ls -d ~/.cache/bazel/_bazel_root/<output base>/external/pypi__*/site \\
        > /tmp/ws3-venv/lib/python3.11/site-packages/base.pth
    G="git --git-dir=<WorldScore mirror>"; P=worldscore/benchmark/metrics/third_party
    for f in $($G ls-tree -r --name-only 344983c $P/SEA-RAFT/core $P/SEA-RAFT/config) \\
             $P/flow_aepe_metrics.py $P/flow_metrics.py $P/motion_accuracy_metrics.py; do
      mkdir -p /tmp/ws_src/$(dirname $f); $G show 344983c:$f > /tmp/ws_src/$f; done
    bazel run //tools/calibration:official_run_inputs -- --only=sea_raft --output_dir=/tmp/sea_raft_in
    /tmp/ws3-venv/bin/python tools/calibration/official_runs/sea_raft.py /tmp/ws_src/$P /tmp/sea_raft_in \\
        $PWD/tools/calibration/sea_raft_official.csv

The metric classes are built by their own constructors, run from the inputs folder so
that their hard-coded relative config and checkpoint paths find the tiny config and
checkpoint there, and called through their own `_compute_flow` / `_compute_scores`.
Stand-ins, each only where the official code reaches outside these files:
* `worldscore.benchmark.metrics.base_metrics.BaseMetric` (its module imports pyiqa):
  a class whose constructor sets `_device` as the official one does (CUDA if available);
* torchvision's `resnet18`/`resnet34` in RAFT's constructor (an ImageNet initialisation
  download that the checkpoint overwrites; its shapes do not fit the tiny width): an
  empty module; the script then checks that `load_ckpt` (strict=False) loaded every tensor;
* the imports motion_accuracy_metrics.py needs for SAM 2, GroundingDINO (unused for
  "i2v"), hydra and spaCy: empty modules; SAM 2's video predictor: a stand-in that
  returns clips/<c>/tracked_masks.npy as logits (+1 inside, -1 outside), so that the
  official union, dilation and per-pair arithmetic run on known masks.
"""

import csv
import os
import pathlib
import sys
import types
import importlib.util

import numpy as np
import torch


class _Predictor:
    """SAM 2's video predictor as motion_accuracy_metrics uses it, on stored masks."""

    def init_state(self, video_path, async_loading_frames=False):
        masks = np.load(pathlib.Path(video_path).parent / "tracked_masks.npy")
        return {"masks": masks, "video_height": masks.shape[2], "video_width": masks.shape[3]}

    def add_new_mask(self, inference_state, frame_idx, obj_id, mask):
        inference_state.setdefault("added", []).append((frame_idx, obj_id, mask.sum()))

    def propagate_in_video(self, inference_state):
        for t, objects in enumerate(inference_state["masks"]):
            logits = torch.from_numpy(np.where(objects, 1.0, -1.0)[:, None]).float()
            yield t, list(range(len(objects))), logits


def _install_stand_ins():
    def module(name, **attrs):
        mod = types.ModuleType(name)
        mod.__dict__.update(attrs)
        mod.__path__ = []
        sys.modules[name] = mod
        return mod

    class BaseMetric:
        def __init__(self):
            self._metric = None
            self._device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    for name in ("worldscore", "worldscore.benchmark", "worldscore.benchmark.metrics"):
        module(name)
    module("worldscore.benchmark.metrics.base_metrics", BaseMetric=BaseMetric)
    module("sam2")
    module("sam2.build_sam", build_sam2_video_predictor=lambda **kw: _Predictor())
    module("hydra", initialize=lambda **kw: None)
    module("hydra.core")
    global_hydra = types.SimpleNamespace(instance=lambda: types.SimpleNamespace(clear=lambda: None))
    module("hydra.core.global_hydra", GlobalHydra=global_hydra)
    for name in ("groundingdino", "groundingdino.datasets", "groundingdino.util"):
        module(name)
    module("groundingdino.datasets.transforms")
    module("groundingdino.models", build_model=None)
    module("groundingdino.util.slconfig", SLConfig=None)
    module("groundingdino.util.utils", clean_state_dict=None, get_phrases_from_posmap=None)
    module("spacy", load=lambda name: None)
    import torchvision.models  # pylint: disable=import-outside-toplevel
    torchvision.models.resnet18 = torchvision.models.resnet34 = \
        lambda weights=None: torch.nn.Module()


def _load(third_party, name):
    spec = importlib.util.spec_from_file_location(name, third_party / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(third_party, inputs, out_path):
    third_party, inputs = pathlib.Path(third_party).resolve(), pathlib.Path(inputs).resolve()
    out_path = pathlib.Path(out_path).resolve()
    sys.path.insert(0, str(third_party / "SEA-RAFT"))
    _install_stand_ins()
    aepe_mod = _load(third_party, "flow_aepe_metrics")
    magnitude_mod = _load(third_party, "flow_metrics")
    accuracy_mod = _load(third_party, "motion_accuracy_metrics")
    os.chdir(inputs)
    aepe = aepe_mod.OpticalFlowAverageEndPointErrorMetric()
    magnitude = magnitude_mod.OpticalFlowMetric()
    accuracy = accuracy_mod.MotionAccuracyMetric(generate_type="i2v")
    stored = torch.load(aepe._args.path, map_location="cpu")
    for model in (aepe._model, magnitude._model, accuracy._optical_flow_model):
        state = model.state_dict()
        assert set(state) == set(stored) and all(torch.equal(state[k], v) for k, v in stored.items())

    seen = []  # what the network is called with (the x0.5 frames)
    original_forward = aepe._model.forward
    aepe._model.forward = lambda image1, image2, **kw: (
        seen.append(image1.detach().clone()), original_forward(image1, image2, **kw))[1]

    rng = np.random.default_rng(1234)
    rows = []

    def stats(i, name, array):
        flat = np.asarray(array, dtype=np.float64).ravel()
        shape = "x".join(map(str, np.shape(array)))
        rows.append((i, name, shape, "sum", repr(float(flat.sum()))))
        rows.append((i, name, shape, "sumsq", repr(float((flat ** 2).sum()))))
        for k in sorted(rng.choice(flat.size, 32, replace=False)):
            rows.append((i, name, shape, f"at:{k}", repr(float(flat[k]))))

    def value(i, name, v):
        rows.append((i, name, "", "value", repr(float(v))))

    pair = 0
    with torch.no_grad():
        for clip in sorted((inputs / "clips").iterdir(), key=lambda p: int(p.name)):
            frames = sorted((clip / "frames").iterdir(), key=lambda p: int(p.stem))
            paths = [str(p) for p in frames]
            for a, b in zip(paths[:-1], paths[1:]):
                seen.clear()
                image_a, image_b = aepe.load_image(a), aepe.load_image(b)
                stats(pair, "flow_fw", aepe._compute_flow(image_a, image_b))
                stats(pair, "network_input", seen[0].cpu().numpy())
                stats(pair, "flow_bw", aepe._compute_flow(image_b, image_a))
                value(pair, "pair_aepe", aepe._compute_scores([a, b]))
                value(pair, "pair_motion_magnitude", magnitude._compute_scores([a, b]))
                pair += 1
            c = int(clip.name)
            value(c, "clip_aepe", aepe._compute_scores(paths))
            value(c, "clip_motion_magnitude", magnitude._compute_scores(paths))
            masks = sorted(str(p) for p in (clip / "masks").iterdir())
            try:
                value(c, "clip_motion_accuracy", accuracy._compute_scores(paths, masks, []))
                value(c, "clip_motion_accuracy_raised", 0)
            except IndexError as error:  # the flow is one row/column short of the mask
                print(f"clip {c}: motion accuracy raised {type(error).__name__}: {error}")
                value(c, "clip_motion_accuracy_raised", 1)
    with open(out_path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(("frame", "tensor", "shape", "stat", "value"))
        writer.writerows(rows)
    print(f"{len(rows)} rows, torch {torch.__version__}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
