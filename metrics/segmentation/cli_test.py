"""Tests for the //metrics/segmentation:text_prompt_detections binary, run as subprocesses.

A tiny random SAM-3 is saved in a temporary --checkpoint_dir; every cache points inside
tmp and HF_HUB_OFFLINE=1, so nothing can be downloaded. Expected values come from
metrics.segmentation.sam3.detect run in-process on the same PNG frames and checkpoint.
"""

import os

os.environ["HF_HUB_OFFLINE"] = "1"  # before huggingface_hub reads it at import
# pylint: disable=wrong-import-position

import cv2
import numpy as np
import pytest

from metrics.segmentation import sam3
from metrics.segmentation import tiny_sam3
from metrics.testing import binary_runner

_BINARY = binary_runner.Binary("metrics/segmentation", "text_prompt_detections")
_PROMPT = "a red ball"


@pytest.fixture(scope="module")
def checkpoint_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ckpt")
    tiny_sam3.save_tiny_sam3(folder)
    return folder


@pytest.fixture(scope="module")
def clip_folder(tmp_path_factory):
    return binary_runner.random_walk_clip(tmp_path_factory.mktemp("clip"), 5, 40, 64, 20)


def test_json_matches_library(tmp_path, checkpoint_dir, clip_folder):
    folder, frames = clip_folder
    record = _BINARY.run_json(tmp_path, f"--frames={folder}", f"--prompt={_PROMPT}",
                              "--start=2", "--end=3", "--threshold=-1",
                              f"--checkpoint_dir={checkpoint_dir}", "--offline")
    detector = sam3.load_sam3(checkpoint_dir / "sam3", "cpu")
    prompt = sam3.encode_prompt(detector, _PROMPT)
    assert [f["frame"] for f in record["per_frame"]] == [2, 3]
    for frame in record["per_frame"]:
        found = sam3.detect(detector, cv2.cvtColor(frames[frame["frame"]], cv2.COLOR_BGR2RGB),
                            prompt, threshold=-1.0)
        assert len(found.scores) > 0  # threshold -1 keeps every query
        np.testing.assert_allclose(frame["scores"], found.scores, rtol=1e-6)
        assert frame["coverage"] == [int(a) / (64 * 40) for a in found.mask_areas]
    assert (record["num_frames"], record["frame_size"]) == (5, [64, 40])
    assert record["backend"] == sam3.BACKEND_NAME and record["checkpoint"]["source"] == (
        "checkpoint_dir")


def test_text_output(tmp_path, checkpoint_dir, clip_folder):
    folder, _ = clip_folder
    done = _BINARY.run(tmp_path, f"--frames={folder}", f"--prompt={_PROMPT}", "--device=cpu",
                       f"--checkpoint={checkpoint_dir / 'sam3'}", "--offline")
    assert done.returncode == 0, done.stderr
    assert sum(line.startswith("frame ") for line in done.stdout.splitlines()) == 5


@pytest.mark.parametrize("args,message", [
    (["--start=4", "--end=2"], "need 0 <= start <= end <= 4"),
    (["--end=9"], "need 0 <= start <= end <= 4"),
    (["--prompt= "], "--prompt is blank"),
])
def test_bad_configuration_exits_2(tmp_path, checkpoint_dir, clip_folder, args, message):
    done = _BINARY.run(tmp_path, f"--frames={clip_folder[0]}", f"--prompt={_PROMPT}", *args,
                       f"--checkpoint_dir={checkpoint_dir}", "--offline", "--device=cpu")
    assert done.returncode == 2 and message in done.stderr, done.stderr


def test_missing_checkpoint_offline_exits_2_with_fetch_command(tmp_path, clip_folder):
    empty = tmp_path / "checkpoints"
    empty.mkdir()
    done = _BINARY.run(tmp_path, f"--frames={clip_folder[0]}", f"--prompt={_PROMPT}",
                       f"--checkpoint_dir={empty}", "--offline", "--device=cpu")
    assert done.returncode == 2, done.stderr
    assert ("huggingface-cli download facebook/sam3 --revision "
            "3c879f39826c281e95690f02c7821c4de09afae7") in done.stderr


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
