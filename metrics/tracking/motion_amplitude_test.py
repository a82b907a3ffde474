"""//metrics/tracking:motion_amplitude as a user runs it."""

import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

from tools.fixtures import vmbench_clips


def _run(*args):
    binary = pathlib.Path(os.environ["TEST_SRCDIR"]) / "worldeval/metrics/tracking/motion_amplitude"
    return subprocess.run([str(binary), *args], capture_output=True, text=True,
                          timeout=120, check=False)


def test_tracks_npy(tmp_path):
    t = np.arange(10, dtype=np.float32)
    tracks = np.stack([np.stack([3 * t, 4 * t], axis=1)] * 4, axis=1)[None]  # (1, T, N, 2)
    np.save(tmp_path / "t.npy", tracks)
    done = _run(f"--tracks={tmp_path / 't.npy'}", "--width=30", "--height=40", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["motion_degree"] == pytest.approx(5 * 9 / 50)
    assert out["points"] == 4 and out["frames"] == 10


def test_video_with_mask_uses_the_lk_backend(tmp_path):
    frames, mask = vmbench_clips.square_clip(4)
    video = vmbench_clips.write_mp4(tmp_path / "0001.mp4", frames)
    np.save(tmp_path / "mask.npy", mask)
    done = _run(f"--video={video}", f"--mask={tmp_path / 'mask.npy'}", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert "NOT official" in out["backend"]
    assert out["motion_degree"] == pytest.approx(4 * 24 / np.hypot(512, 384), rel=0.03)


def test_bad_input_exits_2_naming_the_file(tmp_path):
    (tmp_path / "x.npy").write_text("not an array")
    done = _run(f"--tracks={tmp_path / 'x.npy'}", "--width=3", "--height=4")
    assert done.returncode == 2 and "x.npy: expected a .npy array" in done.stderr
    np.save(tmp_path / "y.npy", np.zeros((3, 4)))
    done = _run(f"--tracks={tmp_path / 'y.npy'}", "--width=3", "--height=4")
    assert done.returncode == 2 and "(T, N, 2)" in done.stderr
