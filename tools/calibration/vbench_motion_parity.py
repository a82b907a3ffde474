"""VBench's motion backends against the official VBench code (Vchitect/VBench @45e79ec, the
vbench 0.1.5 wheel) on identical seeded random FULL-SIZE weights, via the stored official
run (vbench_motion_official.{csv,npz,json}; official_runs/vbench_motion_musiq.py):

* `raft_things` (dynamic_degree): the official `DynamicDegree` (vendored princeton-vl RAFT,
  `iters=20, test_mode=True`) vs benchmarks/vbench/motion/dynamic_degree.compute on
  metrics.flow.raft_things.load_raft_things (torchvision raft_large, renamed keys).
* `amt_s` (motion_smoothness): the official `MotionSmoothness` (vendored AMT-S, cfgs/AMT-S
  .yaml) vs benchmarks/vbench/motion/motion_smoothness.compute on
  metrics.frame_interpolation.amt.load_amt_s.

Both sides read the same files (vbench_motion_weights.raft_state / metrics.frame_interpolation
.tiny_amt at the run's seeds, fingerprints checked) and the same 3 frames (a room clip,
digest checked). Our side runs once per process, as the runner calls it; forward hooks
and `returned` record what it computed without changing it:

* preprocess: RAFT's feature-encoder input (both frames, InputPadder-padded, 2 x / 255 - 1);
  AMT-S's padded inputs and the scale it was called with.
* features: RAFT's last upsampled flow (padded size); AMT-S's `imgt_pred`. The uint8
  midpoints are compared every element in the test (`amt_check`), not as a row.
* score: RAFT's pair scores; thres, count_num and the video value; AMT-S's video value
  (one midpoint: (255 - its mean absdiff) / 255).
"""

import contextlib
import functools
import hashlib
import pathlib
import tempfile
from typing import Dict, List, Tuple

import numpy as np
import torch

from benchmarks.vbench import dimension
from benchmarks.vbench import metric_specs
from benchmarks.vbench.motion import dynamic_degree
from benchmarks.vbench.motion import motion_smoothness
from metrics.flow import raft_things
from metrics.frame_interpolation import amt
from metrics.frame_interpolation import smoothness
from metrics.frame_interpolation import tiny_amt
from tools.calibration import official_numbers
from tools.calibration import parity_table
from tools.calibration import vbench_motion_weights
from tools.calibration import vbench_record as record
from tools.calibration import vbench_weights
from tools.fixtures import scene

RAFT_BACKEND = metric_specs.BACKENDS["raft_dynamic"][0]
AMT_BACKEND = metric_specs.BACKENDS["amt_smoothness"][0]
TEST = "//tools/calibration:vbench_motion_parity_test"
CSV = "tools/calibration/vbench_motion_official.csv"
NPZ = "tools/calibration/vbench_motion_official.npz"
JSON = "tools/calibration/vbench_motion_official.json"
FPS = 8.0  # every frame kept (dynamic_degree's interval round(8 / 8) = 1)
_RUN = ("Vchitect/VBench @45e79ec (vbench 0.1.5) {what}, torch 2.14.1 CPU, run outside the "
        "repository; numbers in tools/calibration/vbench_motion_official.{{csv,npz}}")
RAFT_REFERENCE = _RUN.format(what="dynamic_degree.DynamicDegree(small=False, "
                             "mixed_precision=False, alternate_corr=False).infer on its "
                             "vendored princeton-vl RAFT (iters=20, test_mode=True)")
AMT_REFERENCE = _RUN.format(what="motion_smoothness.MotionSmoothness(cfgs/AMT-S.yaml, "
                            "device 'cpu').motion_score on its vendored AMT-S")


def provenance() -> dict:
    return record.provenance(JSON)


def arrays() -> Dict[str, np.ndarray]:
    return record.arrays(NPZ)


@functools.lru_cache(maxsize=1)
def clip() -> np.ndarray:
    """The run's RGB frames (T=3, 121, 131, 3): the first frames of a room clip, checked.

    Raises:
        ValueError: The rendered frames are not the ones the record was made on.
    """
    spec = provenance()["clip"]
    bgr = scene.render_clip(spec["rendered"], spec["height"], spec["width"], spec["seed"])[0]
    rgb = np.ascontiguousarray(bgr[:spec["frames"], ..., ::-1])
    if [hashlib.sha256(rgb.tobytes()).hexdigest()] != provenance()["frames_sha256"]:
        raise ValueError(f"{JSON} was made on other frames: stale")
    return rgb


def video() -> dimension.Video:
    return dimension.Video(rgb=clip(), fps=FPS, path=pathlib.Path("/videos/clip0.mp4"))


def inputs_text() -> str:
    spec = provenance()["clip"]
    return (f"the first {spec['frames']} of {spec['rendered']} frames of the //tools/fixtures "
            f"room pan (seed {spec['seed']}) at {spec['width']}x{spec['height']}, RGB, at "
            f"{FPS:g} fps; the official run read them as a folder of lossless PNGs")


def weights_text(name: str, module: str, seed: int) -> str:
    return (f"random full-size {name} (seed {seed}, {module}) in the official file's layout")


def _load(name: str, state, write, load):
    """The seeded file written as the official one and read by our loader (fingerprint
    checked against the run's first)."""
    wanted = provenance()["weights_fingerprint"][name]
    if vbench_weights.fingerprint({k: v.numpy() for k, v in state.items()}) != wanted:
        raise ValueError(f"{JSON} was made with other {name} weights: stale")
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "weights.pth"
        write(path)
        return load(path, "cpu")


@functools.lru_cache(maxsize=1)
def load_raft() -> torch.nn.Module:
    seed = provenance()["seeds"]["raft"]
    return _load("raft", vbench_motion_weights.raft_state(seed),
                 lambda p: vbench_motion_weights.write_raft(p, seed),
                 raft_things.load_raft_things)


@functools.lru_cache(maxsize=1)
def load_amt() -> torch.nn.Module:
    seed = provenance()["seeds"]["amt"]
    return _load("amt", tiny_amt.random_official_state(seed),
                 lambda p: tiny_amt.write_official_file(p, seed=seed), amt.load_amt_s)


@contextlib.contextmanager
def returned(module, name: str):
    """Every value `module.name` returns inside the block (the function itself runs)."""
    original, values = getattr(module, name), []

    def wrapper(*args, **kwargs):
        values.append(original(*args, **kwargs))
        return values[-1]
    setattr(module, name, wrapper)
    try:
        yield values
    finally:
        setattr(module, name, original)


def _stats(tensors, name: str):
    table = official_numbers.read(CSV)
    theirs = [np.array([v for _, _, v in table[(i, name)]]) for i in range(len(tensors))]
    mine = [official_numbers.stats_like(t, table[(i, name)]) for i, t in enumerate(tensors)]
    return mine, theirs


_STATS = "shape, mean, RMS and 256 seeded values per {} vs the official run's"


def run_raft() -> List[parity_table.Row]:
    """Recorded: the encoder input, the flows and the pair scores of every kept pair
    (dynamic_degree.pair_scores on dynamic_degree.kept_frames, as upstream scores them all),
    then dynamic_degree.compute's thresholds and value (its walk stops at the deciding
    pair, so it scores only the pairs up to it)."""
    official, model, clip = arrays(), load_raft(), video()
    with record.captured(model.feature_encoder) as encoders, record.captured(model) as calls, \
            returned(dynamic_degree, "pair_scores") as scores:
        dynamic_degree.pair_scores(dynamic_degree.kept_frames(clip.rgb, clip.fps), model)
    with returned(dynamic_degree, "thresholds") as thresholds:
        value = dynamic_degree.compute(clip, model).video_results
    common = dict(test=TEST, reference=RAFT_REFERENCE, inputs=inputs_text(),
                  weights=weights_text("RAFT (raft-things.pth, small=False)",
                                       "tools.calibration.vbench_motion_weights.raft_state: "
                                       "tiny_raft_things' state, flow head x "
                                       f"{vbench_motion_weights.FLOW_HEAD_GAIN:g}",
                                       provenance()["seeds"]["raft"]))
    (thres, count_num), = thresholds
    return [
        parity_table.compare(
            RAFT_BACKEND, "preprocess", *_stats([a[0] for a, _, _ in encoders], "raft/input"),
            compared="the feature encoder's input (both frames, centred replicate padding to "
            "multiples of 8, 2 * x / 255 - 1) vs the official fnet's: " + _STATS.format("pair"),
            **common),
        parity_table.compare(
            RAFT_BACKEND, "features", *_stats([out[-1] for _, _, out in calls], "raft/flow_up"),
            compared="the last of 20 flow updates, upsampled, at the padded size vs the "
            "official flow_up: " + _STATS.format("pair"), **common),
        parity_table.compare(
            RAFT_BACKEND, "score", np.array(scores[0]), official["raft/pair_scores"],
            compared="dynamic_degree.pair_scores (mean of the top 5% |flow| of the padded "
            "field) vs the official get_score, per pair", **common),
        parity_table.compare(
            RAFT_BACKEND, "score", np.array([thres, count_num, value]),
            np.concatenate([official[k] for k in ("raft/thres", "raft/count_num",
                                                  "raft/video_results")]),
            compared="dynamic_degree.compute's thres, count_num and value vs the official "
            "params and video_results", **common)]


def run_amt() -> List[parity_table.Row]:
    return amt_check()[0]


def amt_check() -> Tuple[List[parity_table.Row], np.ndarray]:
    """motion_smoothness.compute once, recorded: the rows (AMT-S's inputs, scale and
    output; the value) and our uint8 midpoints minus the official ones (int [n, H, W, 3]).

    The midpoints are not a table row: the truncation to uint8 turns the float rounding of
    another CPU's kernels into whole levels (on 2026-12-08 oneDNN's AVX2 kernels moved
    imgt_pred by 1e-6 relative and flipped one level somewhere in the frame), so the test
    bounds how many elements move, and by how much, instead.
    """
    official, model = arrays(), load_amt()
    with record.captured(model) as calls, \
            returned(smoothness, "interpolated_midpoints") as midpoints:
        value = motion_smoothness.compute(video(), model).video_results
    common = dict(test=TEST, reference=AMT_REFERENCE, inputs=inputs_text(),
                  weights=weights_text("AMT-S (amt-s.pth {'state_dict'})",
                                       "metrics.frame_interpolation.tiny_amt."
                                       "random_official_state",
                                       provenance()["seeds"]["amt"]))
    in0, in1 = _stats([a[0] for a, _, _ in calls], "amt/in0"), \
        _stats([a[1] for a, _, _ in calls], "amt/in1")
    scales = [np.array([k["scale_factor"] for _, k, _ in calls], np.float64)]
    levels = np.stack(midpoints[0]).astype(np.int64) - official["amt/midpoints"].astype(np.int64)
    return [
        parity_table.compare(
            AMT_BACKEND, "preprocess", in0[0] + in1[0] + scales,
            in0[1] + in1[1] + [official["amt/scale_factor"]],
            compared="AMT-S's inputs (even frames / 255, centred replicate padding to "
            "multiples of 16) and scale_factor vs the official call's: shape, mean, RMS and "
            "256 seeded values per input, the scale exactly", **common),
        parity_table.compare(
            AMT_BACKEND, "features", *_stats([o["imgt_pred"] for _, _, o in calls],
                                              "amt/imgt_pred"),
            compared="AMT-S's imgt_pred (padded) vs the official one: " + _STATS.format(
                "midpoint"), **common),
        parity_table.compare(
            AMT_BACKEND, "score", np.array([value]), official["amt/video_results"],
            compared="motion_smoothness.compute's value vs the official motion_score",
            **common)], levels

