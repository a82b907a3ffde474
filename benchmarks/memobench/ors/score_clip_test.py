"""Tests for the //benchmarks/memobench/ors:score_clip binary: its main called
in-process (binary_runner.run_in_process) and, for a missing --prompt, run as a subprocess.

A tiny random SAM-3 is saved in a temporary --checkpoint_dir; every cache points
inside tmp and HF_HUB_OFFLINE=1, so nothing can be downloaded. Expected values come
from benchmarks.memobench.ors.object_revisit run in-process on the same PNG frames and the
same checkpoint.
"""

import os

os.environ["HF_HUB_OFFLINE"] = "1"  # before huggingface_hub reads it at import
# pylint: disable=wrong-import-position

import pytest

from benchmarks.memobench.ors import object_revisit
from metrics.segmentation import sam3
from metrics.segmentation import tiny_sam3
from metrics.testing import binary_runner

_BINARY = binary_runner.Binary("benchmarks/memobench/ors", "score_clip",
                               "benchmarks.memobench.ors.score_clip")
_run, _run_json = _BINARY.run, _BINARY.run_json
_PROMPT = "a red ball(subject) on the floor"


@pytest.fixture(scope="module")
def checkpoint_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ckpt")
    tiny_sam3.save_tiny_sam3(folder)
    return folder


@pytest.fixture(scope="module")
def clip_folder(tmp_path_factory):
    return binary_runner.random_walk_clip(tmp_path_factory.mktemp("clip"), 9, 40, 64, 20)


def test_json_matches_library(tmp_path, checkpoint_dir, clip_folder):
    folder, _ = clip_folder
    record = _run_json(tmp_path, f"--frames={folder}", f"--prompt={_PROMPT}", "--r_start=5",
                       f"--checkpoint_dir={checkpoint_dir}", "--offline")
    detector = sam3.load_sam3(checkpoint_dir / "sam3", "cpu")
    expected = object_revisit.object_revisit_score(object_revisit.open_clip(folder), 5,
                                                   detector, _PROMPT)
    assert (record["ors"], record["detection_rate"], record["mean_confidence"],
            record["n_r_frames"], record["n_detected"]) == (
        expected.ors, expected.detection_rate, expected.mean_confidence, 4,
        expected.n_detected)
    assert [None if v is None else (v["detected"], v["confidence"])
            for v in record["per_frame"]] == [(v.detected, v.confidence) for v in expected.frames]
    assert (record["num_frames"], record["r_start"], record["r_start_defaulted"]) == (9, 5, False)
    assert record["checkpoint"]["source"] == "checkpoint_dir"
    assert record["backend"] == "sam3-transformers" and record["device"] == "cpu"


def test_default_r_start_and_text(tmp_path, checkpoint_dir, clip_folder):
    folder, _ = clip_folder
    done = _run(tmp_path, f"--frames={folder}", f"--prompt={_PROMPT}", "--device=cpu",
                f"--checkpoint={checkpoint_dir / 'sam3'}", "--offline")
    assert done.returncode == 0, done.stderr
    assert "frames 6..8 (r_start DEFAULTED to 2N//3" in done.stdout
    assert "(0-1; this clip alone)" in done.stdout


def test_missing_checkpoint_offline_exits_2_with_fetch_command(tmp_path, clip_folder):
    folder, _ = clip_folder
    empty = tmp_path / "checkpoints"
    empty.mkdir()
    done = _run(tmp_path, f"--frames={folder}", f"--prompt={_PROMPT}",
                f"--checkpoint_dir={empty}", "--offline", "--device=cpu")
    assert done.returncode == 2, done.stderr
    assert ("huggingface-cli download facebook/sam3 --revision "
            "3c879f39826c281e95690f02c7821c4de09afae7") in done.stderr


def test_bad_input_exits_2(tmp_path, checkpoint_dir):
    done = _run(tmp_path, f"--frames={tmp_path / 'none'}", f"--prompt={_PROMPT}",
                f"--checkpoint_dir={checkpoint_dir}", "--offline", "--device=cpu")
    assert done.returncode == 2 and "expected a frame folder or a video file" in done.stderr
    done = _BINARY.run_subprocess(tmp_path, f"--frames={tmp_path}", "--device=cpu")
    assert done.returncode == 2 and "prompt" in done.stderr


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
