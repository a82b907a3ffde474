"""The official side of the VideoMAE v2 (CAS model) parity check; runs OUTSIDE the repository.

The official code is VMBench's vendored VideoMAEv2/ plus bench_utils/cas_utils.py (mirror of
github.com/AMAP-ML/VMBench at c278a73), not a registry package. How videomae_official.csv
was produced (2026-12-01):

    git --git-dir=<VMBench mirror> archive c278a73 VideoMAEv2 bench_utils | tar -x -C /tmp/cas
    python3.11 -m venv /tmp/cas-venv     # + base.pth -> /tmp/iqa site-packages:
                                         #   torch 2.14.1, numpy 2.3.5, opencv, pillow
    /tmp/cas-venv/bin/pip install --no-deps timm==0.4.12 decord==0.6.0 \\
        tensorboardX==2.6.2.2 protobuf pandas scipy python-dateutil pytz tzdata six
    bazel run //tools/calibration:official_run_inputs -- --only=videomae --output_dir=/tmp/cas/parity_in
    cd /tmp/cas && /tmp/cas-venv/bin/python <repo>/tools/calibration/official_runs/videomae.py \\
        /tmp/cas /tmp/cas/parity_in <repo>/tools/calibration/videomae_official.csv

What is official and what is not:
  model    models.modeling_finetune.VisionTransformer with vit_giant_patch14_224's fixed
           settings (patch 14, mlp_ratio 48/11, qkv_bias, LayerNorm eps 1e-6) and the CAS
           script's create_model arguments (224 px, 5 classes, 16 frames, tubelet 2,
           mean pooling, drop_path 0.3, init_scale 0.001), at embed 32 / depth 2 / 4 heads;
           weights from the input file's "model" entry through the official
           utils.load_state_dict (the last step of run_class_finetuning's --finetune block;
           its key and prefix steps do nothing on this file);
  views    dataset.datasets.VideoClsDataset(mode="test") with build_dataset's
           Commonsense-Adherence arguments; its decord VideoReader is replaced by a reader
           over the stored RGB frames (decode not compared);
  scores   bench_utils.cas_utils.final_test (eval mode, torch.cuda.amp.autocast, which is
           off without CUDA: fp32) writing 0.txt, then final_merge (text parse, scipy
           softmax, mean over views, weights 0..1) into a meta-info JSON; the mean softmax
           is recomputed here from the logits in 0.txt the same way.
  random   the logits of the same constructor's own initialisation after
           torch.manual_seed(0) on clip 0's views (vit.random_init must reproduce them).
  loader   run_class_finetuning.py's own `if args.finetune:` block (its source lines
           541-672, executed unchanged, as main() would run them for --finetune) loading
           the second input file ("module" key, `_orig_mod.backbone.` prefixes, a learned
           12 x 12 position table) into a learned-table model at 224 px (16 x 16): the
           resampled table and the logits of clip 0's first 6 views.
"""

import argparse
import collections
import csv
import functools
import json
import pathlib
import sys
import textwrap

import numpy as np
import torch
from torch import nn


class _Frames:
    """What VideoClsDataset.load_video uses of a decord VideoReader."""

    def __init__(self, frames):
        self.frames = frames

    def __len__(self):
        return len(self.frames)

    def seek(self, _):
        pass

    def get_batch(self, indices):
        batch = self.frames[indices]
        return type("Batch", (), {"asnumpy": lambda self: batch})()


def _official_finetune_load(vmbench, model, path):
    """Runs the --finetune block of run_class_finetuning.main() on `model`, unchanged."""
    import utils  # pylint: disable=import-outside-toplevel
    lines = (vmbench / "VideoMAEv2" / "run_class_finetuning.py").read_text().splitlines()
    start = lines.index("    if args.finetune:")
    end = start + next(i for i, line in enumerate(lines[start:])
                       if "model, checkpoint_model, prefix=args.model_prefix)" in line)
    block = textwrap.dedent("\n".join(lines[start:end + 1]))
    args = argparse.Namespace(finetune=str(path), model_key="model|module", model_prefix="",
                              num_frames=16, tubelet_size=2, input_size=224,
                              data_set="Commonsense-Adherence")
    exec(block, {"args": args, "model": model, "torch": torch, "utils": utils,  # noqa: S102
                 "OrderedDict": collections.OrderedDict, "json": json})


def _model(modeling_finetune, init_seed=None, **overrides):
    if init_seed is not None:
        torch.manual_seed(init_seed)
    return modeling_finetune.VisionTransformer(
        patch_size=14, embed_dim=32, depth=2, num_heads=4, mlp_ratio=48 / 11, qkv_bias=True,
        norm_layer=functools.partial(nn.LayerNorm, eps=1e-6), img_size=224, num_classes=5,
        all_frames=16, tubelet_size=2, drop_rate=0.0, drop_path_rate=0.3, attn_drop_rate=0.0,
        head_drop_rate=0.0, use_mean_pooling=True, init_scale=0.001, with_cp=False,
        **overrides)


def main(vmbench, inputs, out_path):
    vmbench, inputs = pathlib.Path(vmbench), pathlib.Path(inputs)
    sys.path[:0] = [str(vmbench / "VideoMAEv2"), str(vmbench)]
    # pylint: disable=import-outside-toplevel  (the extracted tree is on sys.path only here)
    import utils
    from bench_utils import cas_utils
    from dataset.datasets import VideoClsDataset
    from models import modeling_finetune

    model = _model(modeling_finetune)
    utils.load_state_dict(model, torch.load(inputs / "videomae_tiny.pt")["model"])
    clips = np.load(inputs / "videomae_clips.npz")
    work = inputs / "official_work"  # test.csv, 0.txt, meta.json: outside the repository
    work.mkdir(exist_ok=True)
    names = sorted(clips.files)
    (work / "test.csv").write_text("".join(f"{n} 0\n" for n in names))
    args = argparse.Namespace()
    dataset = VideoClsDataset(
        anno_path=str(work / "test.csv"), data_root="", mode="test", clip_len=16,
        frame_sample_rate=4, num_segment=1, test_num_segment=10, test_num_crop=3,
        num_crop=3, keep_aspect_ratio=True, crop_size=224, short_side_size=224,
        new_height=256, new_width=320, sparse_sample=False, args=args)
    dataset.video_loader = lambda name: _Frames(clips[name])
    loader = torch.utils.data.DataLoader(dataset, batch_size=10, shuffle=False)
    cas_utils.final_test(loader, model, torch.device("cpu"), str(work / "0.txt"))
    (work / "meta.json").write_text(json.dumps([{"filepath": n} for n in names]))
    merged = cas_utils.final_merge(str(work), 1, str(work / "meta.json"))

    views = {n: [None] * 30 for n in names}
    for index in range(len(dataset)):
        buffer, _, name, chunk, split = dataset[index]
        views[name][chunk * 3 + split] = buffer.numpy()
    logits = {n: np.zeros((30, 5)) for n in names}
    for line in (work / "0.txt").read_text().splitlines()[1:]:
        name, rest = line.split(" ", 1)
        numbers = rest.split("]")
        chunk, split = (int(x) for x in numbers[2].split()[1:3])
        logits[name][chunk * 3 + split] = np.array(json.loads(numbers[0] + "]"))
    rng = np.random.default_rng(1234)
    rows = []

    def stats(i, tensor_name, t, sampled):
        flat = t.astype(np.float64).ravel()
        shape = "x".join(map(str, t.shape))
        rows.append((i, tensor_name, shape, "sum", repr(float(flat.sum()))))
        rows.append((i, tensor_name, shape, "sumsq", repr(float((flat ** 2).sum()))))
        picks = sorted(rng.choice(flat.size, sampled, replace=False)) if sampled else \
            range(flat.size)
        for k in picks:
            rows.append((i, tensor_name, shape, f"at:{k}", repr(float(flat[k]))))

    for i, name in enumerate(names):
        stats(i, "views", np.stack(views[name]), 256)
        stats(i, "logits", logits[name], 0)
        probs = cas_utils.softmax(logits[name], axis=1).mean(0)
        for k, p in enumerate(probs):
            rows.append((i, "mean_softmax", "5", f"at:{k}", repr(float(p))))
        cas = [m["commonsense_adherence_score"] for m in merged if m["filepath"] == name]
        rows.append((i, "cas", "", "value", repr(float(cas[0]))))
    random_model = _model(modeling_finetune, init_seed=0).eval()
    with torch.no_grad():
        random_logits = random_model(torch.from_numpy(np.stack(views[names[0]])))
    stats(0, "random_init_logits", random_logits.numpy(), 0)
    learned = _model(modeling_finetune, use_learnable_pos_emb=True)
    _official_finetune_load(vmbench, learned, inputs / "videomae_tiny_learned_prefixed.pt")
    with torch.no_grad():
        loaded_logits = learned.eval()(torch.from_numpy(np.stack(views[names[0]][:6])))
    stats(0, "loader_pos_embed", learned.pos_embed.detach().numpy(), 256)
    stats(0, "loader_logits", loaded_logits.numpy(), 0)
    with open(out_path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(("frame", "tensor", "shape", "stat", "value"))
        writer.writerows(rows)
    print(f"{len(rows)} rows, torch {torch.__version__}, CAS {[m for m in merged]}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
