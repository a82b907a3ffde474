"""MapAnything (CameraControllability) parity: worldeval's call path and rotation-ATE
arithmetic against the official MemoBench code's, via stored numbers.

MapAnything is not on PyPI, so the lock cannot hold it and no test can run it. The
official run (official_runs/mapanything.py, scratch virtualenv with map-anything @f7ebafb
and uniception 0.1.7 on the locked torch, CPU) built a tiny MapAnything with seeded
random weights from the package's own hydra configs, saved it with
`save_pretrained` (config.json + model.safetensors) and loaded it back with
`MapAnything.from_pretrained`; then on each clip `write_inputs` wrote it ran
(i) MemoBench's own `camera_controllability_score` (its FrameReader, PNG hand-off,
`load_images`, `model.infer` and pose arithmetic, imported from MemoBench @f4edb0c) and
(ii) worldeval's `metrics.camera.mapanything_poses.estimate_poses` on the same model.
A wrapper around `model.infer` recorded what each side handed the network. Stored
(mapanything_official.csv, frame = global frame index, or the clip index for `clip_*`):
`views_official` / `views_ours` (each view's normalised `img`: shape, sum, sum of
squares, 32 seeded values), `pose_official` / `pose_ours` (every element of each 4x4
cam2world), and per clip the official metric values, unrounded (`clip_*`: the function
run with its module's `round` replaced by the identity, arithmetic unchanged) and as it
returns them (`clip_*_rounded`).

This module recomputes only the scoring half: the GT of `gt_poses`, resampled by
worldeval's `gt_poses.resample_poses`, and `rotation_ate.rotation_ate_score` on the
stored official poses. The preprocess and features rows compare two stored runs: CI
never calls `estimate_poses` (map-anything cannot be installed here), so a change of our
MapAnything glue would not move them. They are RECORDED comparisons (their `recorded`
column: date and commits), and a recorded row keeps the `mapanything` backend's parity
unverified (benchmarks/common/calibration.py) until our side can be recomputed.
"""

import pathlib
from typing import Dict, List

import cv2
import numpy as np

from metrics.camera import gt_poses as gt_poses_lib
from metrics.camera import rotation_ate
from benchmarks.common import paths
from tools.calibration import frames as frames_lib
from tools.calibration import official_numbers
from tools.calibration import parity_table
from tools.fixtures import camera_path

BACKEND = "mapanything"
TEST = "//tools/calibration:mapanything_parity_test"
OFFICIAL = "tools/calibration/mapanything_official.csv"
SEED = 0
NOISE = 0.02
GT_POSES_PER_CLIP = 7
METRICS = ("coverage", "ate_rot_deg", "total_gt_rot_deg", "mean_rot_error_deg")
REFERENCE = ("MemoBench @f4edb0c camera_controllability.camera_controllability_score on "
             "facebookresearch/map-anything @f7ebafb (uniception 0.1.7, torch 2.14.1, CPU: "
             "use_amp falls back to float16 autocast), run outside the repository; numbers "
             "in " + OFFICIAL)
WEIGHTS = (f"random (seed {SEED}): tiny MapAnything from the package's hydra configs "
           f"(DINOv2 small, 1 encoder block, 2 alternating-attention layers of width 64) + "
           f"noise std {NOISE}, saved and loaded by from_pretrained")
# When the stored "ours" of the preprocess and features rows was computed, by the
# metrics/camera/mapanything_poses.py of which worldeval commit, against which upstream.
RECORDED = ("2026-12-01, worldeval @3fdcfd8 vs map-anything @f7ebafb + MemoBench @f4edb0c "
            "(official_runs/mapanything.py)")


def gt_poses(clip: int) -> np.ndarray:
    """The GT cam2world of clip `clip`: GT_POSES_PER_CLIP poses of a monotonic pan
    (yaw 0 to 120 + 15 * clip degrees, a small tilt, a translation), to be resampled."""
    t = np.linspace(0.0, 1.0, GT_POSES_PER_CLIP)
    poses = np.tile(np.eye(4), (GT_POSES_PER_CLIP, 1, 1))
    for k, tk in enumerate(t):
        tilt = np.deg2rad(5.0 * tk)
        c, s = np.cos(tilt), np.sin(tilt)
        pitch = np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])
        poses[k, :3, :3] = camera_path.rotation_y(np.deg2rad((120.0 + 15.0 * clip) * tk)) @ pitch
        poses[k, :3, 3] = tk * np.array([0.4, 0.0, 0.1])
    return poses


def write_inputs(folder) -> pathlib.Path:
    """clip<k>/frames/00000.png ... (lossless BGR) and clip<k>/gt_poses.npy per size."""
    folder = pathlib.Path(folder)
    for k, clip in enumerate(frames_lib.frames_by_size()):
        frames_dir = folder / f"clip{k}" / "frames"
        frames_dir.mkdir(parents=True, exist_ok=True)
        for i, frame in enumerate(clip):
            path = frames_dir / f"{i:05d}.png"
            if not cv2.imwrite(str(path), frame):
                raise OSError(f"could not write {path}")
        np.save(folder / f"clip{k}" / "gt_poses.npy", gt_poses(k))
    return folder


def _official_poses(official, name: str, count: int) -> List[np.ndarray]:
    """The stored 4x4 poses `name` of frames 0..count-1 (every element stored)."""
    poses = []
    for i in range(count):
        values = {stat: value for _, stat, value in official[(i, name)]}
        poses.append(np.array([values[f"at:{j}"] for j in range(16)]).reshape(4, 4))
    return poses


def official_metrics(official, clip: int, suffix: str = "") -> Dict[str, float]:
    """The official clip's metric values (suffix "_rounded": as the function returns them)."""
    return {m: official[(clip, f"clip_{m}{suffix}")][0][2] for m in METRICS}


def our_scores(official) -> List[rotation_ate.RotationAteScore]:
    """worldeval's score of each clip on the official poses and the resampled GT."""
    scores, start = [], 0
    for k in range(len(frames_lib.SIZES)):
        n = frames_lib.FRAMES_PER_SIZE
        poses = np.stack(_official_poses(official, "pose_official", start + n)[start:])
        scores.append(rotation_ate.rotation_ate_score(
            gt_poses_lib.resample_poses(gt_poses(k), n), poses))
        start += n
    return scores


def recorded_rows() -> List[parity_table.Row]:
    """The preprocess and features rows as the committed table records them.

    They compared our estimate_poses (views, poses) with the official function's, both
    stored by one official run outside CI (RECORDED); CI cannot run MapAnything, so they
    are carried from the table, never rebuilt from the stored "ours", and the gate treats
    them as unverified. The score row is recomputed (run)."""
    table = parity_table.read(paths.runfile(parity_table.TABLE))
    rows = [r for r in table if r.backend == BACKEND and r.check in ("preprocess", "features")]
    if sorted(r.check for r in rows) != ["features", "preprocess"] or not all(
            r.recorded for r in rows):
        raise ValueError(f"{parity_table.TABLE}: expected the recorded preprocess and features "
                         f"rows of {BACKEND}, found {[(r.check, r.recorded) for r in rows]}")
    return sorted(rows, key=lambda r: parity_table.CHECKS.index(r.check))


def run() -> List[parity_table.Row]:
    official = official_numbers.read(OFFICIAL)
    common = dict(reference=REFERENCE, test=TEST, weights=WEIGHTS,
                  inputs=f"{frames_lib.describe()}, one clip per size, lossless PNG")
    rows = recorded_rows()
    scores = our_scores(official)
    mine = [[getattr(s, f) for f in ("score", "ate_rot_deg", "total_gt_rot_deg",
                                     "mean_rot_error_deg")] for s in scores]
    theirs = [[official_metrics(official, k)[m] for m in METRICS] for k in range(len(scores))]
    rows.append(parity_table.compare(
        BACKEND, "score", np.array(mine), np.array(theirs),
        compared="gt_poses.resample_poses + rotation_ate.rotation_ate_score on the stored "
        "official poses (coverage, ATE, total GT rotation, mean relative error per clip) vs "
        "the official function's unrounded values", **common))
    return rows
