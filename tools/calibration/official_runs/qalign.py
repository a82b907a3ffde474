"""The official side of the Q-Align (VMBench MSS) parity check; runs OUTSIDE the repository.

The official code is VMBench's motion_smoothness_score.py and its vendored Q-Align/
(mirror of github.com/AMAP-ML/VMBench at c278a73), not a registry package. How
qalign_official.csv and metrics/qalign/testdata/one_align_state_dict_shapes.json were
produced (2026-12-01):

    G="git --git-dir=<VMBench mirror>"; mkdir -p /tmp/mss-up
    $G show HEAD:motion_smoothness_score.py > /tmp/mss-up/motion_smoothness_score.py
    for f in $($G ls-tree -r --name-only HEAD Q-Align/q_align | grep '\\.py$'); do
        mkdir -p /tmp/mss-up/$(dirname $f); $G show HEAD:$f > /tmp/mss-up/$f; done
    python3.11 -m venv /tmp/mss-venv   # + base.pth -> the locked wheels' site folders
                                       #   (torch 2.14.1, numpy, safetensors, protobuf, ...),
                                       #   transformers/tokenizers/huggingface_hub left out
    /tmp/mss-venv/bin/pip install --no-deps transformers==4.36.1 tokenizers==0.15.0 \\
        huggingface_hub==0.20.3 sentencepiece==0.2.3 accelerate==0.26.1 icecream \\
        executing asttokens colorama
    bazel run //tools/calibration:official_run_inputs -- --only=qalign --output_dir=/tmp/mss-in
    /tmp/mss-venv/bin/python <repo>/tools/calibration/official_runs/qalign.py \\
        /tmp/mss-up /tmp/mss-in <repo>/tools/calibration/qalign_official.csv
    /tmp/mss-venv/bin/python <repo>/tools/calibration/official_runs/qalign.py \\
        /tmp/mss-up --keys <repo>/metrics/qalign/testdata/one_align_state_dict_shapes.json

What runs and what is replaced:
  scorer   motion_smoothness_score.QAlignVideoScorer(pretrained=<snapshot>, device="cpu"):
           the official load_pretrained_model (slow LlamaTokenizer, MPLUGOwl2LlamaForCausalLM
           .from_pretrained in float16, CLIPImageProcessor) and its forward, unchanged:
           float16 on the CPU ("scores_fp16", "logits_fp16");
  float32  the same model class from the same from_pretrained with torch_dtype float32,
           the forward's `.half()` made `.float()` and the weight vector float32
           ("pixels", recorded from the model's `images` argument, "logits", "scores");
  windows  load_video_sliding_window(name, 3) with decord's VideoReader replaced by a
           reader over the stored RGB frames; decord and matplotlib, imported at the top
           of the script but not used by these calls, are stubs;
  MSS      set_threshold(pas), get_artifacts_frames(scores.tolist(), threshold) and
           1 - len(artifacts) / len(scores) on the float16 scores, as __main__ does;
  keys     MPLUGOwl2LlamaForCausalLM(MPLUGOwl2Config()) on the meta device (its
           constructor's tokenizer/processor loading stubbed): {name: shape}.
"""

import csv
import importlib.machinery
import json
import pathlib
import sys
import types
from unittest import mock

import numpy as np
import torch

PAS_VALUES = (None, 0.05, 0.2, 0.4, 0.7)


def _import_official(root: pathlib.Path):
    sys.path[:0] = [str(root), str(root / "Q-Align")]
    for name in ("decord", "matplotlib", "matplotlib.pyplot"):
        stub = types.ModuleType(name)
        stub.__spec__ = importlib.machinery.ModuleSpec(name, None)
        sys.modules.setdefault(name, stub)
    sys.modules["decord"].VideoReader = None
    import motion_smoothness_score  # pylint: disable=import-outside-toplevel
    return motion_smoothness_score


class _Frames:
    """What load_video_sliding_window uses of a decord VideoReader."""

    def __init__(self, frames):
        self.frames = frames

    def __len__(self):
        return len(self.frames)

    def get_batch(self, indices):
        batch = self.frames[indices]
        return types.SimpleNamespace(asnumpy=lambda: batch)


def keys(root: pathlib.Path, out_path: str):
    _import_official(root)
    from q_align.model import modeling_mplug_owl2 as owl  # pylint: disable=import-outside-toplevel
    tok = lambda words: {"input_ids": [[1, 2] for _ in words]}  # noqa: E731
    with mock.patch.object(owl.AutoTokenizer, "from_pretrained", lambda *a, **k: tok), \
            mock.patch.object(owl.CLIPImageProcessor, "from_pretrained", lambda *a, **k: None):
        with torch.device("meta"):
            model = owl.MPLUGOwl2LlamaForCausalLM(owl.MPLUGOwl2Config())
    shapes = {k: list(v.shape) for k, v in model.state_dict().items()}
    pathlib.Path(out_path).write_text("{\n" + ",\n".join(
        f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in shapes.items()) + "\n}\n")
    print(f"{len(shapes)} tensors, {sum(p.numel() for p in model.parameters())} parameters")


def main(root, inputs, out_path):
    root, inputs = pathlib.Path(root), pathlib.Path(inputs)
    mss = _import_official(root)
    from q_align.model import MPLUGOwl2LlamaForCausalLM  # pylint: disable=import-outside-toplevel
    snapshot = str(inputs / "qalign_tiny_snapshot")
    clips = dict(np.load(inputs / "qalign_clips.npz"))
    mss.VideoReader = lambda name: _Frames(clips[name])
    scorer = mss.QAlignVideoScorer(pretrained=snapshot, device="cpu")
    half_model = scorer.model
    full_model = MPLUGOwl2LlamaForCausalLM.from_pretrained(
        snapshot, torch_dtype=torch.float32, low_cpu_mem_usage=True).eval()
    seen = {}
    forward = full_model.forward

    def recording(*args, **kwargs):
        seen["images"] = kwargs["images"]
        return forward(*args, **kwargs)
    full_model.forward = recording
    rows = []

    def stats(i, name, t, sampled=32):
        flat = np.asarray(t, np.float64).ravel()
        shape = "x".join(map(str, np.shape(t)))
        rows.append((i, name, shape, "sum", repr(float(flat.sum()))))
        rows.append((i, name, shape, "sumsq", repr(float((flat ** 2).sum()))))
        rng = np.random.default_rng(1234 + i)
        picks = sorted(rng.choice(flat.size, sampled, replace=False)) if sampled else \
            range(flat.size)
        for k in picks:
            rows.append((i, name, shape, f"at:{k}", repr(float(flat[k]))))

    for i, name in enumerate(sorted(clips)):
        windows = mss.load_video_sliding_window(name, 3)
        scorer.model, scorer.weight_tensor = half_model, scorer.weight_tensor.half()
        logits16, _, scores16 = scorer(windows)
        scorer.model, scorer.weight_tensor = full_model, scorer.weight_tensor.float()
        with mock.patch.object(torch.Tensor, "half", lambda t: t.float()):
            logits32, _, scores32 = scorer(windows)
        stats(i, "pixels", torch.stack(seen["images"]).numpy())
        stats(i, "logits", logits32.numpy(), 0)
        stats(i, "logits_fp16", logits16.float().numpy(), 0)
        stats(i, "scores", scores32.numpy(), 0)
        stats(i, "scores_fp16", scores16.float().numpy(), 0)
        for pas in PAS_VALUES:
            found = mss.get_artifacts_frames(scores16.tolist(), mss.set_threshold(pas))
            rows.append((i, f"mss_pas_{pas}", "", "value",
                         repr(1 - len(found) / len(scores16.tolist()))))
    with open(out_path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(("frame", "tensor", "shape", "stat", "value"))
        writer.writerows(rows)
    print(f"{len(rows)} rows, torch {torch.__version__}")


if __name__ == "__main__":
    if sys.argv[2] == "--keys":
        keys(pathlib.Path(sys.argv[1]), sys.argv[3])
    else:
        main(*sys.argv[1:4])
