"""Tests for the //metrics/clip:image_quality binary: its main called in-process
(binary_runner.run_in_process) and, for a missing clip, run as a subprocess.

A tiny random CLIP ResNet (TorchScript, as OpenAI's RN50.pt) and learned prompts are
laid out as --checkpoint_dir wants. The RN50 spec pins OpenAI's sha256, which random
weights cannot match: the runs pass --allow_unverified_checkpoints, and the refusal
without it is checked separately. Expected values come from metrics.clip.clipiqa
in-process on the same (lossless PNG) frames.
"""

import cv2
import numpy as np
import pytest

from metrics.clip import clipiqa
from metrics.clip import tiny_clipiqa
from metrics.testing import binary_runner

_BINARY = binary_runner.Binary("metrics/clip", "image_quality", "metrics.clip.clipiqa_cli")
_run, _run_json = _BINARY.run, _BINARY.run_json
_RN50_FETCH = ("curl -L https://openaipublic.azureedge.net/clip/models/afeb0e10f9e5a86da6080e35c"
               "f09123aca3b358a0c3e3b6c78a7b63bc04b6762/RN50.pt")
_PROMPTS_FETCH = ("huggingface-cli download chaofengc/IQA-PyTorch-Weights "
                  "CLIP-IQA+_learned_prompts-603f3273.pth --revision main --local-dir")


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    """(checkpoint_dir, RN50 path)."""
    root = tmp_path_factory.mktemp("ckpt")
    rn50 = root / clipiqa.CLIP_RN50.name / "RN50.pt"
    tiny_clipiqa.write_rn50(rn50, seed=11)
    tiny_clipiqa.write_prompts(root / clipiqa.CLIPIQA_PLUS_PROMPTS.name
                               / clipiqa.CLIPIQA_PLUS_PROMPTS.filename, seed=12)
    return root, rn50


@pytest.fixture(scope="module")
def clip_folder(tmp_path_factory):
    return binary_runner.random_walk_clip(tmp_path_factory.mktemp("clip"), 10, 72, 96, 20)


def _expected(checkpoints, frames, step=4):
    root, rn50 = checkpoints
    prompts = root / clipiqa.CLIPIQA_PLUS_PROMPTS.name / clipiqa.CLIPIQA_PLUS_PROMPTS.filename
    return clipiqa.strided_frame_scores(frames, step, clipiqa.load_clipiqa(rn50, prompts, "cpu"))


def test_json_matches_library(tmp_path, checkpoints, clip_folder):
    root, rn50 = checkpoints
    folder, frames = clip_folder
    record = _run_json(tmp_path, f"--frames={folder}", f"--checkpoint_dir={root}",
                       "--allow_unverified_checkpoints", "--offline")
    expected = _expected(checkpoints, frames)
    assert record["indices"] == expected.indices == [0, 4, 8]
    np.testing.assert_allclose(record["frame_scores"], expected.scores, atol=1e-6)
    assert record["mean_score"] == pytest.approx(float(np.mean(expected.scores)), abs=1e-6)
    assert "ImageQuality" not in record and "ImageQuality_pct" not in record  # a benchmark's
    assert (record["num_frames"], record["frame_size"], record["sample_step"]) == (10, [96, 72], 4)
    assert record["device"] == "cpu" and record["backend"].startswith("clipiqa+ (pyiqa)")
    clip_ckpt, prompts_ckpt = record["checkpoints"]["clip"], record["checkpoints"]["prompts"]
    assert (clip_ckpt["path"], clip_ckpt["source"]) == (str(rn50), "checkpoint_dir")
    assert clip_ckpt["verification"] == "unverified"
    assert prompts_ckpt["source"] == "checkpoint_dir" and len(prompts_ckpt["sha256"]) == 64
    assert prompts_ckpt["verification"] == "not_pinned"


def test_text_output_step_batch_and_max_side(tmp_path, checkpoints, clip_folder):
    root, rn50 = checkpoints
    folder, frames = clip_folder
    done = _run(tmp_path, f"--frames={folder}", f"--clip_checkpoint={rn50}", "--offline",
                f"--prompts_checkpoint={root / clipiqa.CLIPIQA_PLUS_PROMPTS.name}",
                "--allow_unverified_checkpoints",
                "--device=cpu", "--max_side=48", "--sample_step=3", "--batch_size=2")
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith(f"warning: {rn50} does not match the pinned sha256")
    lines = done.stdout.splitlines()
    assert lines[0] == f"frames:            {folder} (10 frames, 48x36)"
    assert lines[1] == "sampled:           [0, 3, 6, 9] (step 3)"
    assert lines[3].startswith(f"clip checkpoint:   {rn50} (sha256 ")
    assert lines[3].endswith(", flag) unverified")
    assert lines[4].startswith("prompts checkpoint:") and lines[4].endswith("not_pinned")
    shrunk = np.stack([cv2.resize(f, (48, 36), interpolation=cv2.INTER_AREA) for f in frames])
    expected = _expected(checkpoints, shrunk, step=3)
    assert lines[5].startswith("frame scores:      [")
    assert lines[6].startswith("mean score:        ")
    assert float(lines[6].split()[-1]) == pytest.approx(float(np.mean(expected.scores)), abs=1e-6)


def test_the_pin_refuses_other_weights(tmp_path, checkpoints, clip_folder):
    root, _ = checkpoints
    done = _run(tmp_path, f"--frames={clip_folder[0]}", f"--checkpoint_dir={root}",
                "--offline", "--device=cpu")
    assert done.returncode == 2 and done.stdout == ""
    assert "expected sha256 afeb0e10" in done.stderr and _RN50_FETCH in done.stderr


def test_missing_weights_offline_exit_2_with_fetch_commands(tmp_path, checkpoints, clip_folder):
    _, rn50 = checkpoints
    empty = tmp_path / "empty"
    empty.mkdir()
    done = _run(tmp_path, f"--frames={clip_folder[0]}", f"--checkpoint_dir={empty}", "--offline",
                "--device=cpu")
    assert done.returncode == 2 and "--offline forbids downloading" in done.stderr
    assert _RN50_FETCH in done.stderr
    done = _run(tmp_path, f"--frames={clip_folder[0]}", f"--checkpoint_dir={empty}", "--offline",
                "--device=cpu", f"--clip_checkpoint={rn50}", "--allow_unverified_checkpoints")
    assert done.returncode == 2 and _PROMPTS_FETCH + f" {empty}/clipiqa_plus_prompts" in done.stderr


def test_unusable_files_exit_2(tmp_path, checkpoints, clip_folder):
    root, rn50 = checkpoints
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a model")
    done = _run(tmp_path, f"--frames={clip_folder[0]}", f"--checkpoint_dir={root}", "--offline",
                "--device=cpu", f"--clip_checkpoint={bad}", "--allow_unverified_checkpoints")
    assert done.returncode == 2, done.stderr
    assert "not a usable openai_clip_rn50 checkpoint" in done.stderr and _RN50_FETCH in done.stderr
    done = _run(tmp_path, f"--frames={clip_folder[0]}", "--offline", "--device=cpu",
                f"--clip_checkpoint={rn50}", f"--prompts_checkpoint={bad}",
                "--allow_unverified_checkpoints")
    assert done.returncode == 2
    assert "not a usable clipiqa_plus_prompts checkpoint" in done.stderr
    assert _PROMPTS_FETCH in done.stderr


def test_bad_input_exits_2(tmp_path, checkpoints):
    root, rn50 = checkpoints
    done = _BINARY.run_subprocess(tmp_path, "--frames=/no/such/clip",
                                  f"--checkpoint_dir={root}", "--offline",
                                  f"--clip_checkpoint={rn50}", "--allow_unverified_checkpoints")
    assert done.returncode == 2 and "/no/such/clip" in done.stderr


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
