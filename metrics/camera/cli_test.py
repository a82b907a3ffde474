"""Tests for the //metrics/camera:rotation_ate_score binary (subprocess).

The clip is the fixture's: GT rendered at 160x120 with 25 frames, the
"generated" clip re-rendered at 128x96 with 13 frames on the same trajectory
(generated frame i sits at GT frame 2i, which the resampling rule picks).
Expected values are computed here with the library on the same PNG frames.
"""

import json
import os
import pathlib
import subprocess

import cv2
import numpy as np
import pytest

from metrics.camera import gt_poses
from metrics.camera import intrinsics
from metrics.camera import rotation_ate
from metrics.camera import two_view_rotation
from tools.fixtures import scene

_TIMEOUT_S = 120
_GT_FRAMES, _GEN_FRAMES = 25, 13
_PEAK = 12 / 24


def _binary():
    srcdir = os.environ.get("TEST_SRCDIR")
    assert srcdir, "run with bazel test: the binary comes from the runfiles"
    path = (pathlib.Path(srcdir) / "worldeval" / "metrics" / "camera" /
            "rotation_ate_score")
    assert path.is_file(), f"missing binary {path}"
    return path


def _run(*args):
    return subprocess.run([str(_binary()), *args], capture_output=True,
                          text=True, check=False, timeout=_TIMEOUT_S)


@pytest.fixture(name="clip", scope="module")
def _clip(tmp_path_factory):
    root = tmp_path_factory.mktemp("clip")
    _, c2w, intr, _, _ = scene.render_clip(_GT_FRAMES, 120, 160, 3,
                                           peak_fraction=_PEAK)
    np.save(root / "poses.npy", c2w)
    np.save(root / "intrinsics.npy", intr)
    frames, _, _, _, _ = scene.render_clip(_GEN_FRAMES, 96, 128, 3,
                                           peak_fraction=_PEAK)
    (root / "frames").mkdir()
    for i, frame in enumerate(frames):
        assert cv2.imwrite(str(root / "frames" / f"{i:05d}.png"), frame)
    return root


def _args(clip, **overrides):
    flags = {"frames": clip / "frames", "gt_poses": clip / "poses.npy",
             "intrinsics": clip / "intrinsics.npy", "gt_size": "160x120"}
    flags.update(overrides)
    return [f"--{name}={value}" for name, value in flags.items()]


def _expected(clip):
    frames = np.stack([cv2.imread(str(p)) for p in
                       sorted((clip / "frames").iterdir())])
    gt = gt_poses.resample_poses(np.load(clip / "poses.npy"), len(frames))
    k = intrinsics.rescale(
        intrinsics.camera_matrix(*np.load(clip / "intrinsics.npy")[0]),
        (160, 120), (128, 96))
    estimate = two_view_rotation.estimate_rotations(frames, k)
    return rotation_ate.rotation_ate_score(gt, estimate.rotations), estimate


def test_json_output_matches_library(clip):
    done = _run("--json", *_args(clip))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1, done.stdout
    record = json.loads(lines[0])
    score, estimate = _expected(clip)
    assert record == {
        "score": score.score,
        "ate_rot_deg": score.ate_rot_deg,
        "total_gt_rot_deg": score.total_gt_rot_deg,
        "mean_rot_error_deg": score.mean_rot_error_deg,
        "backend": "classical-two-view-rotation",
        "official": False,
        "frames": _GEN_FRAMES,
        "generated_size": [128, 96],
        "failed_pairs": estimate.failures,
        "pair_methods": {m: estimate.methods.count(m) for m in (
            "homography", "essential", "failed")},
        "generated": str(clip / "frames"),
    }
    # The pan goes out and back (total 0, denominator 10 degrees).
    assert record["total_gt_rot_deg"] < 1.0
    assert record["score"] > 0.6
    assert record["failed_pairs"] == 0


def test_text_output_and_max_side(clip):
    done = _run(*_args(clip), "--max_side=64")
    assert done.returncode == 0, done.stderr
    assert "classical-two-view-rotation (official: false" in done.stdout
    assert "(13 frames, 64x48)" in done.stdout
    for name in ("rotation-ATE score:", "ATE rotation (deg):", "total GT rotation (deg):",
                 "mean rotation error:"):
        assert any(line.startswith(name) for line in done.stdout.splitlines())


@pytest.mark.parametrize("flag,name", [
    ("gt_poses", "missing_poses.npy"), ("intrinsics", "missing_k.npy"),
    ("frames", "missing_frames")])
def test_missing_file_exits_2_naming_the_path(clip, tmp_path, flag, name):
    bad = tmp_path / name
    done = _run(*_args(clip, **{flag: bad}))
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert str(bad) in lines[0]


def test_wrong_pose_shape_exits_2(clip, tmp_path):
    bad = tmp_path / "poses.npy"
    np.save(bad, np.zeros((5, 3, 4)))
    done = _run(*_args(clip, gt_poses=bad))
    assert done.returncode == 2
    assert str(bad) in done.stderr and "(N, 4, 4)" in done.stderr


@pytest.mark.parametrize("args", [
    ["--gt_size=160"], ["--gt_size=0x120"], []])
def test_bad_or_missing_gt_size_exits_2(clip, args):
    flags = [a for a in _args(clip) if not a.startswith("--gt_size")] + args
    done = _run(*flags)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "gt_size" in done.stderr


def test_single_frame_clip_exits_2(clip, tmp_path):
    one = tmp_path / "one"
    one.mkdir()
    cv2.imwrite(str(one / "00000.png"), cv2.imread(
        str(clip / "frames" / "00000.png")))
    done = _run(*_args(clip, frames=one))
    assert done.returncode == 2
    assert "at least 2 frames" in done.stderr and str(one) in done.stderr


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
