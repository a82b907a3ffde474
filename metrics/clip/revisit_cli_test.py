"""Tests for the //metrics/clip:gt_revisit binary, run as subprocesses.

A tiny random tower is laid out as --checkpoint_dir wants; expected values come
from metrics.clip.revisit on the same frames (lossless PNG; the video reference
is read back with metrics.video.frames, as the binary reads it).
"""

import json
import os
import pathlib
import subprocess

import cv2
import numpy as np
import pytest

from metrics.clip import random_models
from metrics.clip import reference_transform
from metrics.clip import revisit
from metrics.clip import vision
from metrics.video import frames as frames_lib

_TIMEOUT_S = 300
_FETCH = "huggingface-cli download openai/clip-vit-base-patch32 --revision main --local-dir "


def _binary():
    srcdir = os.environ.get("TEST_SRCDIR")
    assert srcdir, "run with bazel test: the binary comes from the runfiles"
    path = pathlib.Path(srcdir) / "worldeval" / "metrics" / "clip" / "gt_revisit"
    assert path.is_file(), f"missing binary {path}"
    return path


def _run(tmp_path, *args):
    """Runs the binary offline, with every cache (HOME, HF_HOME, ...) inside tmp_path."""
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    for name in ("HOME", "TORCH_HOME", "XDG_CACHE_HOME", "HF_HOME"):
        env[name] = str(tmp_path / "env" / name)
    return subprocess.run([str(_binary()), *args], capture_output=True, text=True,
                          check=False, timeout=_TIMEOUT_S, env=env)


def _error_line(done):
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


def _write_folder(folder, frames):
    folder.mkdir()
    for i, frame in enumerate(frames):
        assert cv2.imwrite(str(folder / f"{i:05d}.png"), frame)
    return folder


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """Checkpoint dir, generated folder (21 frames), GT folder (30 frames), GT video."""
    root = tmp_path_factory.mktemp("data")
    random_models.write_vision_snapshot(root / "ckpt" / revisit.CLIP_VIT_B32.name,
                                        projection_dim=512, seed=31)
    gen = np.stack([reference_transform.smooth_frame(60, 80, seed=i) for i in range(21)])
    gt = np.stack([reference_transform.smooth_frame(90, 120, seed=50 + i) for i in range(30)])
    video = root / "gt.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (120, 90))
    assert writer.isOpened()
    for frame in gt:
        writer.write(frame)
    writer.release()
    return {"ckpt": root / "ckpt", "gen": _write_folder(root / "gen", gen),
            "gt": _write_folder(root / "gt", gt), "video": video, "gen_frames": gen,
            "gt_frames": gt}


def _expected(data, r, r_gt, gt_total, gt_frames_at, activation="gelu", gen=None):
    model = vision.load_clip_vision(data["ckpt"] / revisit.CLIP_VIT_B32.name, "cpu", activation)
    gen = data["gen_frames"] if gen is None else gen
    return revisit.revisit_details(gen, gt_frames_at, r, r_gt, gt_total, model)


def _run_json(tmp_path, data, *args):
    done = _run(tmp_path, "--json", "--device=cpu", "--offline",
                f"--checkpoint_dir={data['ckpt']}", f"--generated={data['gen']}", *args)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1, done.stdout
    return json.loads(lines[0])


def _check(record, expected):
    assert [(p["gt_index"], p["gen_index"]) for p in record["pairs"]] == expected.pairs
    np.testing.assert_allclose([p["similarity"] for p in record["pairs"]],
                               expected.similarities, atol=1e-5)
    assert abs(record["GTRevisitSim"] - expected.score) <= 1e-4
    assert record["GTRevisitSim"] == round(float(np.mean(
        [p["similarity"] for p in record["pairs"]])), 4)


def test_folder_reference_matches_library(tmp_path, data):
    record = _run_json(tmp_path, data, f"--reference={data['gt']}", "--r_start=12",
                       "--r_start_gt=17")
    expected = _expected(data, 12, 17, 30, lambda idx: [data["gt_frames"][i] for i in idx])
    assert expected.pairs == [(17, 12), (23, 16), (29, 20)]
    _check(record, expected)
    assert 0.0 <= record["GTRevisitSim"] <= 1.0
    assert (record["gt_total"], record["r_start"], record["r_start_gt"]) == (30, 12, 17)
    assert (record["num_frames"], record["frame_size"]) == (21, [80, 60])
    assert not record["r_start_derived"] and record["clip_activation"] == "gelu"
    assert record["checkpoint"]["source"] == "checkpoint_dir"
    assert record["checkpoint"]["path"] == str(data["ckpt"] / "clip_vit_base_patch32")


def test_video_reference_gt_total_override_and_quick_gelu(tmp_path, data):
    record = _run_json(tmp_path, data, f"--reference={data['video']}", "--r_start=5",
                       "--r_start_gt=10", "--clip_activation=quick_gelu")
    assert record["gt_total"] == frames_lib.video_frame_count(data["video"]) == 30

    def read(indices):
        return frames_lib.read_video_frames(data["video"], indices)

    _check(record, _expected(data, 5, 10, 30, read, activation="quick_gelu"))
    record = _run_json(tmp_path, data, f"--reference={data['video']}", "--r_start=5",
                       "--r_start_gt=10", "--gt_total=25")
    expected = _expected(data, 5, 10, 25, read)
    assert expected.pairs == [(10, 5), (17, 12), (24, 20)]  # 10 + 14 / 2 = 17.
    _check(record, expected)


def test_mapped_r_start_text_output_and_max_side(tmp_path, data):
    done = _run(tmp_path, "--device=cpu", "--offline", f"--checkpoint_dir={data['ckpt']}",
                f"--generated={data['gen']}", f"--reference={data['gt']}", "--h_start_gt=8",
                "--r_start_gt=17", "--max_side=40")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    # map_keyframes(8, 17, 30, 21): r = round(17 / 30 * 21) = round(11.9) = 12.
    assert lines[2] == "keyframes:     r_start=12 (mapped with map_keyframes), r_start_gt=17"
    assert lines[0] == f"generated:     {data['gen']} (21 frames, 40x30)"
    assert lines[1] == f"reference:     {data['gt']} (30 frames)"
    assert lines[3] == "backbone:      CLIP ViT-B/32 (transformers), activation gelu, on cpu"
    assert [line.split(" -> ")[0] for line in lines[5:8]] == [
        "pair:          gt 17 vs generated 12", "pair:          gt 23 vs generated 16",
        "pair:          gt 29 vs generated 20"]
    shrunk = np.stack([cv2.resize(f, (40, 30), interpolation=cv2.INTER_AREA)
                       for f in data["gen_frames"]])
    expected = _expected(data, 12, 17, 30, lambda idx: [data["gt_frames"][i] for i in idx],
                         gen=shrunk)
    assert lines[8].startswith("GTRevisitSim:  ")
    assert abs(float(lines[8].split()[-1]) - expected.score) <= 1e-4


def test_missing_checkpoint_offline_exits_2_with_fetch_command(tmp_path, data):
    empty = tmp_path / "checkpoints"
    empty.mkdir()
    line = _error_line(_run(tmp_path, "--device=cpu", "--offline", f"--checkpoint_dir={empty}",
                            f"--generated={data['gen']}", f"--reference={data['gt']}",
                            "--r_start=12", "--r_start_gt=17"))
    assert _FETCH + f"{empty}/clip_vit_base_patch32" in line
    assert list(empty.iterdir()) == []


@pytest.mark.parametrize("args,message", [
    (["--r_start=21", "--r_start_gt=17"], "--r_start/--r_start_gt: need 0 <= r <= N-1"),
    (["--r_start=3", "--r_start_gt=30"], "need 0 <= r_gt <= gt_total-1"),
    (["--r_start_gt=17"], "pass --r_start, or --h_start_gt"),
    (["--r_start=3", "--r_start_gt=3", "--device=tpu"], "--device=tpu"),
])
def test_bad_configuration_exits_2(tmp_path, data, args, message):
    done = _run(tmp_path, "--offline", f"--checkpoint_dir={data['ckpt']}",
                f"--generated={data['gen']}", f"--reference={data['gt']}", *args)
    assert message in _error_line(done)


def test_missing_reference_exits_2(tmp_path, data):
    line = _error_line(_run(tmp_path, "--offline", "--device=cpu",
                            f"--checkpoint_dir={data['ckpt']}", f"--generated={data['gen']}",
                            f"--reference={tmp_path / 'none.txt'}", "--r_start=1",
                            "--r_start_gt=1"))
    assert str(tmp_path / "none.txt") in line


def test_required_flag_exits_2(tmp_path):
    done = _run(tmp_path, "--generated=a", "--reference=b")
    assert done.returncode == 2
    assert "r_start_gt" in done.stderr.splitlines()[0]


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
