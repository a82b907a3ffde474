"""Tests for the //metrics/flow:warp_smoothness binary: its main called in-process
(binary_runner.run_in_process) and, for RAFT without weights, run as a subprocess.

Expected scores are computed here with metrics.flow.warp_error and the
OpenCV DIS backend on the same frames (PNG is lossless), so they must match.
"""

import collections

import cv2
import numpy as np
import pytest

from metrics.flow import opencv_dis
from metrics.flow import warp_error
from metrics.testing import binary_runner

_FETCH = "curl -L https://download.pytorch.org/models/raft_large_C_T_SKHT_V2-ff5fadd5.pth"
_BINARY = binary_runner.Binary("metrics/flow", "warp_smoothness", "metrics.flow.cli")
_run, _run_json = _BINARY.run, _BINARY.run_json


def _clip(num_frames=21, height=64, width=80, seed=0):
    """A smooth texture panning right by 1 px per frame, BGR uint8."""
    rng = np.random.default_rng(seed)
    noise = rng.uniform(0, 255, (height, width + num_frames, 3)).astype(np.float32)
    texture = cv2.GaussianBlur(noise, (0, 0), sigmaX=2.0)
    texture = ((texture - texture.min()) / (texture.max() - texture.min()) * 255).round()
    texture = texture.astype(np.uint8)
    return np.stack([texture[:, num_frames - i:num_frames - i + width]
                     for i in range(num_frames)])


_Expected = collections.namedtuple("_Expected", "smoothness phases")


def _expected(frames, spans, step):
    """The library's value for the spans the binary scores (the mean, unrounded)."""
    result = warp_error.flow_warp_smoothness(frames, spans, step, opencv_dis.DisFlow())
    return _Expected(result.mean, result.spans)


def _write_folder(folder, frames):
    folder.mkdir()
    for i, frame in enumerate(frames):
        assert cv2.imwrite(str(folder / f"frame_{i:04d}.png"), frame)
    return folder


def test_dis_backend_json_matches_library(tmp_path):
    frames = _clip()
    folder = _write_folder(tmp_path / "clip", frames)
    record = _run_json(tmp_path, f"--frames={folder}", "--flow_backend=dis",
                       "--h_start=8", "--r_start=12")
    expected = _expected(frames, [("V", 0, 8), ("R", 12, 20)], 4)
    assert record["WarpSmoothness"] == expected.smoothness
    assert 0.3 < record["WarpSmoothness"] < 1.0
    assert (record["backend"], record["official"]) == ("opencv-dis", False)
    assert (record["h_start"], record["r_start"], record["keyframes_defaulted"]) == (8, 12, False)
    assert (record["num_frames"], record["frame_size"]) == (21, [80, 64])
    assert record["checkpoint"] is None and record["frames"] == str(folder)
    assert [(p["name"], p["indices"]) for p in record["phases"]] == [
        ("V", [0, 4, 8]), ("R", [12, 16, 20])]
    assert [p["score"] for p in record["phases"]] == [p.score for p in expected.phases]


def test_default_keyframes_and_text_output(tmp_path):
    frames = _clip()
    folder = _write_folder(tmp_path / "clip", frames)
    record = _run_json(tmp_path, f"--frames={folder}", "--flow_backend=dis", "--sample_step=2")
    assert (record["h_start"], record["r_start"], record["keyframes_defaulted"]) == (7, 14, True)
    expected = _expected(frames, [("V", 0, 7), ("R", 14, 20)], 2)
    assert record["WarpSmoothness"] == expected.smoothness
    done = _run(tmp_path, f"--frames={folder}", "--flow_backend=dis")
    assert done.returncode == 0, done.stderr
    assert "DEFAULTED to N//3, 2N//3 where not given" in done.stdout
    record = _run_json(tmp_path, f"--frames={folder}", "--flow_backend=dis", "--h_start=8")
    assert (record["h_start"], record["r_start"], record["keyframes_defaulted"]) == (8, 14, True)
    assert "NOT the official backend; the official one is raft-large" in done.stdout
    # With step 4, V = (0, 7) samples [0, 4]: the official 0.0 that is still averaged in.
    assert ("phase V:       (0, 7) sampled [0, 4] -> score 0.0 (< 3 sampled frames: 0.0, "
            "still averaged in)") in done.stdout.splitlines()
    expected = _expected(frames, [("V", 0, 7), ("R", 14, 20)], 4)
    assert f"WarpSmoothness: {expected.smoothness!r}" in done.stdout.splitlines()


def test_max_side_shrinks_frames(tmp_path):
    folder = _write_folder(tmp_path / "clip", _clip(num_frames=9, height=64, width=80))
    record = _run_json(tmp_path, f"--frames={folder}", "--flow_backend=dis", "--max_side=40")
    assert record["frame_size"] == [40, 32]


def test_raft_without_checkpoint_offline_exits_2_with_fetch_command(tmp_path):
    folder = _write_folder(tmp_path / "clip", _clip(num_frames=9))
    empty = tmp_path / "checkpoints"
    empty.mkdir()
    done = _BINARY.run_subprocess(tmp_path, f"--frames={folder}", "--flow_backend=raft",
                                  "--offline", f"--checkpoint_dir={empty}", "--device=cpu")
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert _FETCH in lines[0] and str(empty) in lines[0]
    assert list(empty.iterdir()) == []


@pytest.mark.parametrize("args,message", [
    (["--h_start=15", "--r_start=10"], "--h_start/--r_start"),
    (["--r_start=21"], "--h_start/--r_start"),
    (["--flow_backend=raft", "--device=tpu"], "--device=tpu"),
])
def test_bad_configuration_exits_2(tmp_path, args, message):
    folder = _write_folder(tmp_path / "clip", _clip())
    backend = [] if any(a.startswith("--flow_backend") for a in args) else ["--flow_backend=dis"]
    done = _run(tmp_path, f"--frames={folder}", *backend, *args)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]


def test_missing_frames_exits_2(tmp_path):
    done = _run(tmp_path, f"--frames={tmp_path / 'missing'}", "--flow_backend=dis")
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and str(tmp_path / "missing") in done.stderr


def test_bad_flag_exits_2(tmp_path):
    done = _run(tmp_path, "--frames=x", "--flow_backend=flownet")
    assert done.returncode == 2
    assert "flow_backend" in done.stderr.splitlines()[0]


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
