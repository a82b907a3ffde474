"""Tests for the //metrics/dinov2:patch_similarity binary: its main called in-process
(binary_runner.run_in_process) and, for the missing checkpoint, run as a subprocess.

A tiny random DINOv2 is saved in a temporary --checkpoint_dir; every cache (HOME,
HF_HOME, TORCH_HOME, XDG_CACHE_HOME) points inside tmp and HF_HUB_OFFLINE=1, so
nothing can be downloaded. Expected values come from metrics.dinov2.identity run
in-process on the same frames (PNG is lossless) and the same checkpoint.
"""

import dataclasses

import numpy as np
import pytest

from metrics.dinov2 import backbone
from metrics.dinov2 import identity
from metrics.dinov2 import tiny_checkpoint
from metrics.testing import binary_runner

_FETCH = ("huggingface-cli download facebook/dinov2-base --revision "
          "f9e44c814b77203eaa57a6bdbbd535f21ede1415 --local-dir")


_BINARY = binary_runner.Binary("metrics/dinov2", "patch_similarity", "metrics.dinov2.cli")
_run, _run_json = _BINARY.run, _BINARY.run_json


@pytest.fixture(autouse=True)
def _random_weights_unpinned(monkeypatch):
    """The tiny weights are random: the pinned sha256s cannot match them (the pins
    themselves are tested beside the specs)."""
    for name in ('DINOV2_BASE',):
        monkeypatch.setattr(backbone, name,
                            dataclasses.replace(getattr(backbone, name), sha256=""))


@pytest.fixture(scope="module")
def checkpoint_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ckpt")
    tiny_checkpoint.save_tiny_dinov2(folder, seed=5)
    return folder


@pytest.fixture(scope="module")
def clip_folder(tmp_path_factory):
    return binary_runner.random_walk_clip(tmp_path_factory.mktemp("clip"), 15, 72, 96, 10)


def test_json_matches_library(tmp_path, checkpoint_dir, clip_folder):
    folder, frames = clip_folder
    record = _run_json(tmp_path, f"--frames={folder}", f"--checkpoint_dir={checkpoint_dir}",
                       "--offline", "--h_start=4", "--r_start=7")
    model = backbone.load_dinov2(checkpoint_dir / "dinov2_base", "cpu")
    expected = identity.identity_details(frames, 7, len(frames) - 1, model, "cpu")
    assert (record["PatchSimilarityMean"], record["PatchSimilarityMin"]) == (expected.mean,
                                                                        expected.min)
    assert record["indices"] == [7, 7, 8, 9, 10, 11, 12, 13, 14] == list(expected.indices)
    np.testing.assert_allclose(record["frame_means"], expected.frame_means, atol=1e-6)
    assert "ObjIdentityConsistency" not in record  # The benchmark's blend is not printed here.
    assert (record["h_start"], record["r_start"], record["keyframes_defaulted"]) == (4, 7, False)
    assert (record["num_frames"], record["frame_size"]) == (15, [96, 72])
    ckpt = record["checkpoint"]
    assert (ckpt["name"], ckpt["source"]) == ("dinov2_base", "checkpoint_dir")
    assert ckpt["path"] == str(checkpoint_dir / "dinov2_base")
    assert record["device"] == "cpu" and record["backend"] == "dinov2-vitb14"


def test_explicit_checkpoint_defaults_max_side_and_text(tmp_path, checkpoint_dir, clip_folder):
    folder, _ = clip_folder
    snapshot = checkpoint_dir / "dinov2_base"
    record = _run_json(tmp_path, f"--frames={folder}", f"--checkpoint={snapshot}", "--offline",
                       "--max_side=48")
    assert (record["h_start"], record["r_start"], record["keyframes_defaulted"]) == (5, 10, True)
    assert record["checkpoint"]["source"] == "flag"
    assert record["frame_size"] == [48, 36]
    done = _run(tmp_path, f"--frames={folder}", f"--checkpoint={snapshot}", "--offline",
                "--device=cpu", "--max_side=48")
    assert done.returncode == 0, done.stderr
    assert "DEFAULTED to N//3, 2N//3 where not given" in done.stdout
    assert f"PatchSimilarityMean:    {record['PatchSimilarityMean']!r}" in done.stdout.splitlines()
    assert "sampled (vs frame 0):   [10, 10, 11, 11, 12, 12, 13, 13, 14]" in done.stdout


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
    assert f"{_FETCH} {empty}/dinov2_base" in lines[0]
    assert list(empty.iterdir()) == []


def test_explicit_folder_without_weights_exits_2(tmp_path, clip_folder):
    folder, _ = clip_folder
    done = _run(tmp_path, f"--frames={folder}", f"--checkpoint={tmp_path}", "--offline")
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and _FETCH in done.stderr


@pytest.mark.parametrize("args,message", [
    (["--h_start=9", "--r_start=5"], "--h_start/--r_start"),
    (["--r_start=15"], "--h_start/--r_start"),
    (["--device=tpu"], "--device=tpu"),
])
def test_bad_configuration_exits_2(tmp_path, checkpoint_dir, clip_folder, args, message):
    folder, _ = clip_folder
    done = _run(tmp_path, f"--frames={folder}", f"--checkpoint_dir={checkpoint_dir}",
                "--offline", *args)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]


def test_missing_frames_exits_2(tmp_path):
    done = _run(tmp_path, f"--frames={tmp_path / 'missing'}", "--offline")
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and str(tmp_path / "missing") in done.stderr


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
