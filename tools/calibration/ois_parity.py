"""OIS parity: worldeval's RTMDet-m and RTMPose-m (metrics/pose, benchmarks/vmbench/
ois_official.py) against the official mmdet 3.2.0 / mmpose 1.3.2 inference that
object_integrity_score.py (AMAP-ML/VMBench @c278a73) runs, via stored numbers.

mmcv has no wheel for the locked torch, so the official side ran outside the repository
(official_runs/ois_rtm.py: mmcv-lite 2.1.0, mmengine 0.10.7, mmdet 3.2.0, mmpose 1.3.2,
the locked torch 2.14.1, CPU; its compiled `_ext` replaced by torchvision's nms) with
the official configs on the FULL-SIZE random checkpoints and frames
`//tools/calibration:official_run_inputs -- --only=ois` writes. Recorded per frame (forward hooks on the
official modules, which carry the names ours load): the detector's input tensor and its
raw head outputs; the pose model's input crops and raw SimCC vectors (plain and flipped
call); instance 0's keypoints and scores; the OIS of the clip.

Keypoints are argmaxes of SimCC vectors, which random weights make nearly flat: where
the flip-averaged vector's two largest values are closer than NEAR_TIE (relative to the
vectors' scale), float32 summation order (AVX2 vs AVX-512 kernels) picks either, and
the keypoint lands anywhere (seen: equal on the CPU of the official run, 1.06 of the
coordinate scale apart on an AMD EPYC with AVX-512). The `features` row bounds the
SimCC vectors themselves; the `score` row compares every keypoint whose two maxima are
further apart than NEAR_TIE, which no float rounding within the features' tolerance can
swap, and leaves the near-ties out (`near_ties` counts them), and the OIS of each clip
with none (a near-tie moved the no-box clip's OIS from 1.0 to 0.958 on that CPU).
"""

import pathlib
import tempfile
from typing import Dict, List

import numpy as np
import torch

from benchmarks.vmbench import ois_official
from metrics.pose import object_integrity
from metrics.pose import rtmdet
from metrics.pose import rtmpose
from metrics.pose import tiny_models
from tools.calibration import official_numbers
from tools.calibration import parity_table
from tools.fixtures import scene

DET, POSE = "rtmdet-m", "rtmpose-m"
TEST = "//tools/calibration:ois_parity_test"
OFFICIAL = "tools/calibration/ois_official.csv"
DET_SEED, POSE_SEED, CLS_BIAS, CLS_SCALE = 11, 12, -0.5, 15.0
FRAMES, HEIGHT, WIDTH, SCENE_SEED = 3, 239, 427, 5
REFERENCE = ("mmdet 3.2.0 + mmpose 1.3.2 (mmcv-lite 2.1.0, torchvision nms for mmcv's), "
             "the configs object_integrity_score.py loads, run outside the repository; "
             "numbers in " + OFFICIAL)
INPUTS = (f"{FRAMES} BGR frames of the //tools/fixtures room (seed {SCENE_SEED}) at "
          f"{WIDTH}x{HEIGHT}, plus the same frames with no person box (whole-image path)")
WEIGHTS = (f"random, full size (metrics/pose/tiny_models.randomise seeds {DET_SEED} / "
           f"{POSE_SEED}, class bias {CLS_BIAS}, class weights x{CLS_SCALE}; a second "
           "detector with class bias -12: no box passes 0.3)")
DET_FILE, NONE_FILE, POSE_FILE = "det.pth", "det_none.pth", "pose.pth"
NEAR_TIE = 10 * parity_table.DEFAULT_TOLERANCE


def frames() -> np.ndarray:
    return scene.render_clip(FRAMES, HEIGHT, WIDTH, SCENE_SEED)[0]


def write_inputs(folder) -> pathlib.Path:
    """<folder>/det.pth, det_none.pth, pose.pth (mmengine format) and frames.npy."""
    folder = pathlib.Path(folder)
    det = rtmdet.RTMDet(rtmdet.RtmdetConfig())
    tiny_models.randomise(det, DET_SEED, CLS_BIAS, CLS_SCALE)
    torch.save({"meta": {}, "state_dict": det.state_dict()}, str(folder / DET_FILE))
    with torch.no_grad():
        for conv in det.bbox_head.rtm_cls:
            conv.bias.fill_(-12.0)
    torch.save({"meta": {}, "state_dict": det.state_dict()}, str(folder / NONE_FILE))
    pose = rtmpose.TopdownRTMPose(rtmpose.RtmposeConfig())
    tiny_models.randomise(pose, POSE_SEED)
    torch.save({"meta": {}, "state_dict": pose.state_dict()}, str(folder / POSE_FILE))
    np.save(folder / "frames.npy", frames())
    return folder


def _hook(module, store: List, inputs: bool):
    def record(_module, args, output):
        store.append(args[0].detach().clone() if inputs else
                     [t.detach().clone() for group in output for t in
                      (group if isinstance(group, (list, tuple)) else [group])])
    return module.register_forward_hook(record)


def ours() -> Dict[str, Dict[str, List]]:
    """Per detector file: our recorded tensors, instance 0 poses and the OIS."""
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        write_inputs(tmp)
        video = np.load(pathlib.Path(tmp) / "frames.npy")
        estimator = rtmpose.load_rtmpose(pathlib.Path(tmp) / POSE_FILE)
        for det_file in (DET_FILE, NONE_FILE):
            detector = rtmdet.load_rtmdet(pathlib.Path(tmp) / det_file, batch_size=1)
            rec = {"det_input": [], "det_head": [], "pose_input": [], "pose_head": [],
                   "top_box": [], "decisive": []}

            def keypoints(crops, rec=rec):
                rec["top_box"].append(np.array(crops[0][1], np.float64))
                real = estimator.simcc

                def simcc(batch):
                    x, y = real(batch)
                    rec["decisive"].append(decisive(x[0], y[0]))
                    return x, y
                estimator.simcc = simcc
                try:
                    return estimator.keypoints(crops)
                finally:
                    del estimator.simcc
            hooks = [_hook(detector.model.backbone, rec["det_input"], True),
                     _hook(detector.model.bbox_head, rec["det_head"], False),
                     _hook(estimator.model.backbone, rec["pose_input"], True),
                     _hook(estimator.model.head, rec["pose_head"], False)]
            fam = ois_official.OisOfficial(None, (), ois_official.OisModels(
                detector.detect, keypoints))
            points, scores, persons = fam.poses(video)
            for h in hooks:
                h.remove()
            rec.update(keypoints=list(points), scores=list(scores), persons=persons,
                       ois=[[object_integrity.object_integrity(points, scores).score]])
            out[det_file] = rec
    return out


def decisive(simcc_x: np.ndarray, simcc_y: np.ndarray) -> np.ndarray:
    """(K, 2) bool: each keypoint coordinate whose argmax no rounding can move (both
    vectors' top two values, and the score's distance from 0, above NEAR_TIE)."""
    scale = max(np.abs(simcc_x).max(), np.abs(simcc_y).max())

    def margin(v):
        top = np.sort(v, axis=1)[:, -2:]
        return top[:, 1] - top[:, 0]
    score = np.minimum(simcc_x.max(axis=1), simcc_y.max(axis=1))
    ok = ((margin(simcc_x) > NEAR_TIE * scale) & (margin(simcc_y) > NEAR_TIE * scale)
          & (np.abs(score) > NEAR_TIE * scale))
    return np.repeat(ok[:, None], 2, axis=1)


def near_ties(recorded) -> int:
    """How many keypoints the score row leaves out."""
    return int(sum((~d).sum() // 2 for rec in recorded.values() for d in rec["decisive"]))


def _tensors(rec, name: str) -> List[np.ndarray]:
    """Per frame: our tensor `name` in the layout official_runs/ois_rtm.py stores."""
    if name == "det_input":
        return [t[0].numpy() for t in rec["det_input"]]
    if name == "det_head":
        return [np.concatenate([t[0].ravel().numpy() for t in h]) for h in rec["det_head"]]
    if name == "pose_input":  # the plain call (the flipped one follows it)
        return [t[0].numpy() for t in rec["pose_input"][0::2]]
    if name == "pose_head":   # plain then flipped call, x then y, instance 0
        return [np.concatenate([t[0].ravel().numpy() for t in a + b]) for a, b in
                zip(rec["pose_head"][0::2], rec["pose_head"][1::2])]
    return [np.asarray(v, np.float64) for v in rec[name]]


def run(recorded=None) -> List[parity_table.Row]:
    """The rows; `recorded`: ours() when already computed."""
    official = official_numbers.read(OFFICIAL)
    recorded = recorded or ours()
    common = dict(test=TEST, reference=REFERENCE, weights=WEIGHTS, inputs=INPUTS)

    def rows_for(backend, parts):
        out = []
        for check, names, what in parts:
            mine, theirs = [], []
            for offset, det_file in ((0, DET_FILE), (FRAMES, NONE_FILE)):
                for name in names:
                    for i, tensor in enumerate(_tensors(recorded[det_file], name)):
                        wanted = official[(offset + i, name)]
                        values = official_numbers.stats_like(tensor, wanted)
                        official_values = np.array([v for _, _, v in wanted])
                        decisive = recorded[det_file]["decisive"]
                        if name == "keypoints":  # near-ties compare as equal (module)
                            values = np.where(decisive[i].ravel(), values, official_values)
                        if name == "ois" and not all(d.all() for d in decisive):
                            values = official_values  # a clip with a near-tie: left out
                        mine.append(values)
                        theirs.append(official_values)
            out.append(parity_table.compare(backend, check, mine, theirs, compared=(
                f"{', '.join(names)} ({what}) vs the official run's"), **common))
        return out

    rows = rows_for(DET, (
        ("preprocess", ["det_input"], "letterboxed, normalised 640x640 input: shape, mean, "
         "RMS, 32 values per frame"),
        ("features", ["det_head"], "raw class logits and distances of the 3 levels"),
        ("score", ["top_box"], "instance 0's box (whole image when none passes), every "
         "value")))
    rows += rows_for(POSE, (
        ("preprocess", ["pose_input"], "instance 0's 256x192 crop, RGB, normalised"),
        ("features", ["pose_head"], "SimCC x/y of the plain and the flipped crop"),
        ("score", ["keypoints", "scores", "ois"], "instance 0's keypoints (but near-ties "
         "of the SimCC argmax) and scores, every value, and the OIS of clips without near-ties")))
    return rows
