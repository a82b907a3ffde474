"""Tests for the //metrics/depth:depth_consistency binary: its main called in-process
(binary_runner.run_in_process) and, for the missing checkpoint, run as a subprocess.

A tiny random Depth Anything is saved in a temporary --checkpoint_dir; every cache
(HOME, HF_HOME, TORCH_HOME, XDG_CACHE_HOME) points inside tmp and HF_HUB_OFFLINE=1,
so nothing can be downloaded. Expected values come from metrics.depth.depth_consistency
run in-process on the same frames (PNG is lossless) and the same checkpoint.
"""

import dataclasses

import numpy as np
import pytest

from metrics.depth import depth_anything
from metrics.depth import depth_consistency
from metrics.depth import tiny_checkpoint
from metrics.testing import binary_runner

_FETCH = ("huggingface-cli download depth-anything/Depth-Anything-V2-Small-hf --revision "
          "5426e4f0f36572d16453bbda7a8389317b1bef99 --local-dir")


_BINARY = binary_runner.Binary("metrics/depth", "depth_consistency", "metrics.depth.cli")
_run, _run_json = _BINARY.run, _BINARY.run_json


@pytest.fixture(autouse=True)
def _random_weights_unpinned(monkeypatch):
    """The tiny weights are random: the pinned sha256 cannot match them (the pin itself is
    tested beside the spec)."""
    monkeypatch.setattr(depth_anything, "DEPTH_ANYTHING_V2_SMALL", dataclasses.replace(
        depth_anything.DEPTH_ANYTHING_V2_SMALL, sha256=""))


@pytest.fixture(scope="module")
def checkpoint_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ckpt")
    tiny_checkpoint.save_tiny_depth_anything(folder, seed=2)
    return folder


@pytest.fixture(scope="module")
def clip_folder(tmp_path_factory):
    return binary_runner.random_walk_clip(tmp_path_factory.mktemp("clip"), 13, 54, 96, 12)


def test_json_matches_library(tmp_path, checkpoint_dir, clip_folder):
    folder, frames = clip_folder
    record = _run_json(tmp_path, f"--frames={folder}", f"--checkpoint_dir={checkpoint_dir}",
                       "--offline", "--h_start=4", "--r_start=8")
    model, processor = depth_anything.load_depth_anything(
        checkpoint_dir / "depth_anything_v2_small", "cpu")
    expected = depth_consistency.depth_consistency_details(
        frames, [("V", 0, 4), ("R", 8, len(frames) - 1)], model, processor, "cpu")
    assert (record["DepthConsistencyMean"], record["DepthConsistencyMin"]) == (
        expected.mean, expected.min)
    assert [(p["name"], p["start"], p["end"], p["indices"]) for p in record["phases"]] == [
        ("V", 0, 4, [0, 2, 4]), ("R", 8, 12, [8, 10, 12])]
    for got, want in zip(record["phases"], expected.spans):
        np.testing.assert_allclose(got["pair_similarities"], want.pair_similarities, atol=1e-6)
        assert (got["mean"], got["min"]) == (want.mean, want.min)
    assert "Geo3DConsistency" not in record  # The benchmark's blend is not printed here.
    assert (record["num_frames"], record["frame_size"]) == (13, [96, 54])
    ckpt = record["checkpoint"]
    assert (ckpt["name"], ckpt["source"]) == ("depth_anything_v2_small", "checkpoint_dir")
    assert record["device"] == "cpu" and record["backend"] == "depth-anything-v2-small"


def test_explicit_checkpoint_defaults_and_text(tmp_path, checkpoint_dir, clip_folder):
    folder, _ = clip_folder
    snapshot = checkpoint_dir / "depth_anything_v2_small"
    record = _run_json(tmp_path, f"--frames={folder}", f"--checkpoint={snapshot}", "--offline")
    assert (record["h_start"], record["r_start"], record["keyframes_defaulted"]) == (4, 8, True)
    assert record["checkpoint"]["source"] == "flag"
    done = _run(tmp_path, f"--frames={folder}", f"--checkpoint={snapshot}", "--offline",
                "--device=cpu", "--r_start=12")
    assert done.returncode == 0, done.stderr
    assert "DEFAULTED to N//3, 2N//3 where not given" in done.stdout
    assert "sampled [] -> mean None, min None (a single frame: no pair" in done.stdout
    # The pairless span is left out: the combination is the V span's alone.
    assert "DepthConsistencyMin:  None" not in done.stdout.splitlines()


def test_missing_checkpoint_offline_exits_2_with_fetch_command(tmp_path, clip_folder):
    folder, _ = clip_folder
    empty = tmp_path / "checkpoints"
    empty.mkdir()
    done = _BINARY.run_subprocess(tmp_path, f"--frames={folder}", f"--checkpoint_dir={empty}",
                                  "--offline", "--device=cpu")
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert f"{_FETCH} {empty}/depth_anything_v2_small" in lines[0]
    assert list(empty.iterdir()) == []


def test_snapshot_without_processor_config_exits_2(tmp_path, checkpoint_dir, clip_folder):
    folder, _ = clip_folder
    partial = tmp_path / "partial"
    partial.mkdir()
    source = checkpoint_dir / "depth_anything_v2_small"
    for name in ("config.json", "model.safetensors"):
        (partial / name).write_bytes((source / name).read_bytes())
    done = _run(tmp_path, f"--frames={folder}", f"--checkpoint={partial}", "--offline",
                "--device=cpu")
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and "preprocessor_config.json" in done.stderr
    assert _FETCH in done.stderr


@pytest.mark.parametrize("args,message", [
    (["--h_start=9", "--r_start=5"], "--h_start/--r_start"),
    (["--r_start=13"], "--h_start/--r_start"),
    (["--device=tpu"], "--device=tpu"),
])
def test_bad_configuration_exits_2(tmp_path, checkpoint_dir, clip_folder, args, message):
    folder, _ = clip_folder
    done = _run(tmp_path, f"--frames={folder}", f"--checkpoint_dir={checkpoint_dir}",
                "--offline", *args)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]


def test_bad_flag_exits_2(tmp_path):
    done = _run(tmp_path, "--frames=x", "--max_side=0")
    assert done.returncode == 2
    assert "max_side" in done.stderr.splitlines()[0]


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
