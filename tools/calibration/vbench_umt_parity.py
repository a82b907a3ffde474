"""VBench's UMT backend (`umt_l16_ptk710_ftk710_ftk400`, human_action) against the official
VBench code (Vchitect/VBench @45e79ec = the vbench 0.1.5 wheel: human_action.human_action()
with its UMT modeling_finetune, video_transforms, volume_transforms and utils.load_video)
on identical seeded random FULL-SIZE weights, via the stored official run
(vbench_umt_official.{npz,json}).

The official run (outside the repository, 2026-12-08; a scratch virtualenv with the
locked torch 2.14.1, numpy 2.4.1, opencv-python 4.14.0.94, and timm 1.0.12, the last timm
vbench allows, whose create_model still calls the registered function with VBench's
arguments: the lock's timm 1.0.31 adds `cache_dir`, which UMT's VisionTransformer
refuses; the wheel's vbench/ tree with its package __init__ files skipped, `decord`
replaced by a reader serving the clips below, `clip` by an empty module) called the
official `human_action(umt_path, videos, "cpu")` on the file
metrics.umt.tiny_umt.write_checkpoint(UMT_L16_K400, WEIGHT_SEED) writes (flat, float16,
no pos_embed: the official file's form, metrics/umt/loader.py) and on the two clips of
vbench_umt_inputs; forward hooks recorded the model input, block 0's input and output,
fc_norm's output and the logits; the JSON keeps the official load_state_dict(strict=False)
result, the official state dict's keys and shapes, the per-video dicts and the
fingerprints of the weights and clips. Here the same file is written and read by
metrics.umt.loader.load_umt, and our code recomputes:

* preprocess: the (1, 3, 16, 224, 224) clip our human_action.compute feeds the network vs
  the official load_video(data_transform, num_frames=16) tensor: mean, RMS, 8192 seeded
  elements and all of frame 5's channel 0, per clip.
* features: our position table vs the official model's (4096 seeded values, mean, RMS);
  block 0's input and output (8192 seeded elements, mean, RMS) on clip 0; and (full run
  only) fc_norm's output (1024) and the logits (all 400) per clip.
* score (full run only): the sigmoid top-5 values (the classes must be the same) and
  the per-video result.

The CI test (vbench_umt_parity_test) runs the preprocess and block-0 rows: a full UMT-L
forward (3136 tokens through 24 blocks) takes minutes on two shared CPU cores. The full
rows are vbench_umt_parity_full_test (manual) and write_parity_table.
"""

import contextlib
import functools
import hashlib
import json
import pathlib
import tempfile
from typing import Dict, List, Tuple

import numpy as np
import torch

from benchmarks.common import paths
from benchmarks.vbench import dimension
from benchmarks.vbench import metric_specs
from benchmarks.vbench.dimensions import human_action
from metrics.umt import loader
from metrics.umt import tiny_umt
from metrics.umt import vit
from metrics.viclip import inputs as middle
from tools.calibration import parity_table
from tools.calibration import vbench_umt_inputs as umt_inputs

BACKEND = metric_specs.BACKENDS["umt"][0]
TEST = "//tools/calibration:vbench_umt_parity_full_test"
NPZ = "tools/calibration/vbench_umt_official.npz"
JSON = "tools/calibration/vbench_umt_official.json"
VBENCH_COMMIT = "45e79ec14e69a2187202c675d2dbce1a71843d53"
REFERENCE = ("Vchitect/VBench @45e79ec (vbench 0.1.5) human_action.human_action() with its "
             "UMT modeling_finetune (timm 1.0.12 create_model), UMT transforms and "
             "utils.load_video (decord stand-in), float32, torch 2.14.1 CPU, run outside "
             "the repository; numbers in tools/calibration/vbench_umt_official.{npz,json}")
WEIGHTS = (f"random full-size UMT ViT-L/16 K400 (seed {umt_inputs.WEIGHT_SEED}, "
           "metrics.umt.tiny_umt.write_checkpoint) in the official file's form (flat, "
           "float16, no pos_embed)")
INPUTS = ("2 seeded integer-arithmetic clips (vbench_umt_inputs): 20 frames at 320x240 and "
          "12 at 640x360, RGB")
COMMON = dict(test=TEST, reference=REFERENCE, weights=WEIGHTS, inputs=INPUTS)


class _Stop(Exception):
    """Ends a forward pass after the block whose output was recorded."""


def provenance() -> dict:
    record = json.loads(paths.runfile(JSON).read_text(encoding="utf-8"))
    if VBENCH_COMMIT not in record["upstream"]:
        raise ValueError(f"{JSON} is of {record['upstream']}, not {VBENCH_COMMIT}")
    return record


def arrays() -> Dict[str, np.ndarray]:
    with np.load(paths.runfile(NPZ)) as data:
        return {k: data[k] for k in data.files}


def fingerprint(state: Dict[str, torch.Tensor]) -> str:
    digest = hashlib.sha256()
    for key in sorted(state):
        digest.update(key.encode())
        digest.update(state[key].numpy().tobytes())
    return digest.hexdigest()


def clips() -> List[np.ndarray]:
    """The run's clips, their digests checked (a changed generator reads as stale)."""
    out = umt_inputs.all_clips()
    wanted = provenance()["clips_sha256"]
    if [hashlib.sha256(c.tobytes()).hexdigest() for c in out] != wanted:
        raise ValueError(f"{JSON} was made on other clips: stale")
    return out


@functools.lru_cache(maxsize=1)
def load() -> Tuple[vit.UmtViT, loader.LoadReport]:
    """The seeded file written as the official one and read by load_umt (its fingerprint
    checked; once per process)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = f"{tmp}/l16_ptk710_ftk710_ftk400_f16_res224.pth"
        state = tiny_umt.write_checkpoint(path, vit.UMT_L16_K400, umt_inputs.WEIGHT_SEED)
        if fingerprint(state) != provenance()["weights_fingerprint_sha256"]:
            raise ValueError(f"{JSON} was made with other weights: stale")
        del state
        return loader.load_umt(path, "cpu")


def _video(index: int, rgb: np.ndarray) -> dimension.Video:
    name = umt_inputs.CLIPS[index][0]
    return dimension.Video(rgb, 8.0, pathlib.Path("/videos") / name)


@contextlib.contextmanager
def _recording(model: vit.UmtViT, stop_after_block0: bool):
    seen: Dict[str, List[torch.Tensor]] = {}

    def hook(name, stop=False):
        def record(module, args, out):
            seen.setdefault(name + "_in", []).append(args[0].detach().clone())
            seen.setdefault(name + "_out", []).append(out.detach().clone())
            if stop:
                raise _Stop
        return record
    handles = [model.register_forward_hook(hook("model")),
               model.blocks[0].register_forward_hook(hook("block0", stop_after_block0)),
               model.fc_norm.register_forward_hook(hook("fc_norm"))]
    pre = model.register_forward_pre_hook(
        lambda module, args: seen.setdefault("input", []).append(args[0].detach().clone()))
    try:
        yield seen
    finally:
        for handle in handles + [pre]:
            handle.remove()


def _sampled(official, prefix: str, tensor: torch.Tensor) -> Tuple[np.ndarray, np.ndarray]:
    """(ours, theirs): mean, RMS and the seeded elements the official run stored."""
    flat = tensor.double().numpy().ravel()
    count = flat.size
    total, squares = official[prefix + "_sum_sumsq"]
    ours = np.concatenate([[flat.mean(), np.sqrt((flat ** 2).mean())],
                           flat[official[prefix + "_positions"]]])
    theirs = np.concatenate([[total / count, np.sqrt(squares / count)],
                             official[prefix + "_values"].astype(np.float64)])
    return ours, theirs


def _preprocess_row(official, inputs: List[torch.Tensor]) -> parity_table.Row:
    ours, theirs = [], []
    for i, x in enumerate(inputs):
        a, b = _sampled(official, f"clip{i}/input", x)
        ours.append(np.concatenate([a, x[0, 0, 5].double().numpy().ravel()]))
        theirs.append(np.concatenate([b, official[f"clip{i}/input_frame5_channel0"].ravel()]))
    return parity_table.compare(
        BACKEND, "preprocess", ours, theirs,
        compared="human_action.compute's (1, 3, 16, 224, 224) network input (16 middle "
        "frames, cv2 bilinear short side 256, centre crop 224, /255, ImageNet) vs the "
        "official load_video(data_transform, num_frames=16): mean, RMS, 8192 seeded "
        "elements and frame 5's channel 0, per clip", **COMMON)


def _early_rows(official, model: vit.UmtViT, seen) -> List[parity_table.Row]:
    table = _sampled(official, "pos_embed", model.pos_embed.detach())
    tokens = _sampled(official, "clip0/tokens", seen["block0_in"][0])
    block = _sampled(official, "clip0/block0", seen["block0_out"][0])
    return [
        parity_table.compare(
            BACKEND, "features", table[0], table[1],
            compared="metrics.umt.vit.position_table (8-frame sine-cosine table resampled "
            "to 16 frames) vs the official model's pos_embed: mean, RMS, 4096 seeded values",
            **COMMON),
        parity_table.compare(
            BACKEND, "features", [tokens[0], block[0]], [tokens[1], block[1]],
            compared="block 0's input (patch embedding + table) and output on clip 0: "
            "mean, RMS and 8192 seeded elements each", **COMMON)]


def early_rows() -> List[parity_table.Row]:
    """The CI rows: preprocess (both clips) and the table and block 0 (clip 0), the
    forward stopped after block 0."""
    official, model = arrays(), load()[0]
    inputs = []
    with _recording(model, stop_after_block0=True) as seen:
        for i, rgb in enumerate(clips()):
            picked = rgb[middle.middle_frame_indices(len(rgb), human_action.NUM_FRAMES)]
            x = human_action.clip_tensor(picked)[None]
            inputs.append(x)
            if i == 0:
                with contextlib.suppress(_Stop), torch.no_grad():
                    model(x)
    return [_preprocess_row(official, inputs)] + _early_rows(official, model, seen)


def run() -> List[parity_table.Row]:
    """Every row: human_action.compute run on both clips (full forwards), hooks recording."""
    official, (model, report) = arrays(), load()
    wanted = provenance()["load_state_dict"]
    if (list(report.missing_keys), list(report.unexpected_keys)) != (
            sorted(wanted["missing_keys"]), sorted(wanted["unexpected_keys"])):
        raise ValueError(f"load report {report} differs from the official {wanted}")
    with _recording(model, stop_after_block0=False) as seen:
        values = [human_action.compute(_video(i, rgb), model) for i, rgb in enumerate(clips())]
    record = provenance()["video_results"]
    ours_score, theirs_score = [], []
    for i, value in enumerate(values):
        top_values, top_indices = torch.topk(torch.sigmoid(seen["model_out"][i]), 5, dim=1)
        if top_indices[0].tolist() != official[f"clip{i}/top5_indices"].tolist():
            raise ValueError(f"clip {i}: top-5 classes {top_indices[0].tolist()}, the "
                             f"official run's {official[f'clip{i}/top5_indices'].tolist()}")
        ours_score.append(np.concatenate([top_values[0].double().numpy(),
                                          [float(value.video_results),
                                           value.extras["cor_num_per_video"]]]))
        theirs_score.append(np.concatenate([
            official[f"clip{i}/top5_values"].astype(np.float64),
            [float(record[i]["video_results"]), record[i]["cor_num_per_video"]]]))
    return [_preprocess_row(official, seen["input"])] + _early_rows(official, model, seen) + [
        parity_table.compare(
            BACKEND, "features", [t[0] for t in seen["fc_norm_out"]],
            [official[f"clip{i}/features"] for i in range(len(values))],
            compared="fc_norm's output (mean-pooled tokens), every element, per clip",
            **COMMON),
        parity_table.compare(
            BACKEND, "features", [t[0] for t in seen["model_out"]],
            [official[f"clip{i}/logits"] for i in range(len(values))],
            compared="the 400 Kinetics logits, every element, per clip", **COMMON),
        parity_table.compare(
            BACKEND, "score", ours_score, theirs_score,
            compared="the sigmoid top-5 values (their classes required equal) and "
            "human_action.compute's video_results and cor_num_per_video vs the official "
            "per-video dicts, per clip",
            **COMMON)]
