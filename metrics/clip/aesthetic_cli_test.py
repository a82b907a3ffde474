"""Tests for the //metrics/clip:aesthetic binary: its main called in-process
(binary_runner.run_in_process) and, for a failed download, run as a subprocess.

A tiny random tower and a random head are laid out as --checkpoint_dir wants;
expected scores come from metrics.clip.aesthetic on the same (lossless PNG) frames.
"""

import cv2
import numpy as np
import pytest

from metrics.clip import aesthetic
from metrics.clip import tiny_clip
from metrics.clip import reference_transform
from metrics.testing import binary_runner

_HF_FETCH = "huggingface-cli download openai/clip-vit-large-patch14 --revision main --local-dir "
_HEAD_FETCH = ("curl -L https://github.com/christophschuhmann/improved-aesthetic-predictor/raw/"
               "main/sac+logos+ava1-l14-linearMSE.pth")


_BINARY = binary_runner.Binary("metrics/clip", "aesthetic", "metrics.clip.aesthetic_cli")
_run, _run_json = _BINARY.run, _BINARY.run_json


def _error_line(done):
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


@pytest.fixture(scope="module")
def checkpoint_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("ckpt")
    tiny_clip.write_vision_snapshot(root / aesthetic.CLIP_VIT_L14.name, seed=21)
    tiny_clip.write_head(root / aesthetic.AESTHETIC_HEAD.name
                             / aesthetic.AESTHETIC_HEAD.filename, seed=22)
    return root


@pytest.fixture(scope="module")
def clip_folder(tmp_path_factory):
    """(folder of 10 PNG frames, the frames)."""
    folder = tmp_path_factory.mktemp("clip")
    frames = np.stack([reference_transform.smooth_frame(72, 96, seed=i) for i in range(10)])
    for i, frame in enumerate(frames):
        assert cv2.imwrite(str(folder / f"frame_{i:04d}.png"), frame)
    return folder, frames


def _expected(checkpoint_dir, frames, activation, step=4):
    model = aesthetic.load_aesthetic(
        checkpoint_dir / aesthetic.CLIP_VIT_L14.name,
        checkpoint_dir / aesthetic.AESTHETIC_HEAD.name / aesthetic.AESTHETIC_HEAD.filename,
        "cpu", activation)
    return aesthetic.strided_frame_scores(frames, step, model, "cpu")


def test_json_matches_library(tmp_path, checkpoint_dir, clip_folder):
    folder, frames = clip_folder
    record = _run_json(tmp_path, f"--frames={folder}", f"--checkpoint_dir={checkpoint_dir}",
                       "--offline")
    expected = _expected(checkpoint_dir, frames, "gelu")
    assert record["indices"] == expected.indices == [0, 4, 8]
    np.testing.assert_allclose(record["frame_scores"], expected.scores, atol=1e-5)
    assert record["mean_score"] == pytest.approx(float(np.mean(expected.scores)), abs=1e-5)
    assert record["mean_score"] == float(np.mean(record["frame_scores"]))
    assert "AestheticScore" not in record  # a benchmark's rounding of the mean, not ours
    assert (record["num_frames"], record["frame_size"], record["sample_step"]) == (10, [96, 72], 4)
    assert (record["clip_activation"], record["device"]) == ("gelu", "cpu")
    clip_ckpt, head_ckpt = record["checkpoints"]["clip"], record["checkpoints"]["head"]
    assert clip_ckpt["path"] == str(checkpoint_dir / "clip_vit_large_patch14")
    assert clip_ckpt["source"] == head_ckpt["source"] == "checkpoint_dir"
    assert head_ckpt["path"].endswith("laion_aesthetic_l14/sac+logos+ava1-l14-linearMSE.pth")
    assert len(head_ckpt["sha256"]) == 64


def test_quick_gelu_flag_step_and_explicit_paths(tmp_path, checkpoint_dir, clip_folder):
    folder, frames = clip_folder
    record = _run_json(
        tmp_path, f"--frames={folder}", "--clip_activation=quick_gelu", "--sample_step=3",
        f"--clip_checkpoint={checkpoint_dir / 'clip_vit_large_patch14'}",
        f"--head_checkpoint={checkpoint_dir / 'laion_aesthetic_l14'}", "--batch_size=2",
        "--offline")
    expected = _expected(checkpoint_dir, frames, "quick_gelu", step=3)
    gelu = _expected(checkpoint_dir, frames, "gelu", step=3)
    assert record["indices"] == [0, 3, 6, 9]
    np.testing.assert_allclose(record["frame_scores"], expected.scores, atol=1e-5)
    assert np.abs(np.subtract(record["frame_scores"], gelu.scores)).max() > 1e-4
    assert record["clip_activation"] == "quick_gelu"
    assert {c["source"] for c in record["checkpoints"].values()} == {"flag"}


def test_text_output_and_max_side(tmp_path, checkpoint_dir, clip_folder):
    folder, frames = clip_folder
    done = _run(tmp_path, f"--frames={folder}", f"--checkpoint_dir={checkpoint_dir}",
                "--offline", "--device=cpu", "--max_side=48")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"frames:          {folder} (10 frames, 48x36)"
    assert lines[1] == "sampled:         [0, 4, 8] (step 4)"
    assert lines[2] == "backbone:        CLIP ViT-L/14 (transformers), activation gelu, on cpu"
    assert lines[3].startswith(f"clip checkpoint: {checkpoint_dir / 'clip_vit_large_patch14'} ")
    assert lines[4].startswith("head checkpoint: ")
    shrunk = np.stack([cv2.resize(f, (48, 36), interpolation=cv2.INTER_AREA) for f in frames])
    expected = _expected(checkpoint_dir, shrunk, "gelu")
    assert lines[5].startswith("frame scores:    [")
    score = float(lines[6].split()[-1])
    assert lines[6].startswith("mean score:      ")
    assert score == pytest.approx(float(np.mean(expected.scores)), abs=1e-5)


def test_missing_tower_offline_exits_2_with_fetch_command(tmp_path, clip_folder):
    folder, _ = clip_folder
    empty = tmp_path / "checkpoints"
    empty.mkdir()
    line = _error_line(_run(tmp_path, f"--frames={folder}", f"--checkpoint_dir={empty}",
                            "--offline", "--device=cpu"))
    assert "--offline forbids downloading" in line
    assert _HF_FETCH + f"{empty}/clip_vit_large_patch14" in line
    assert list(empty.iterdir()) == []


def test_missing_head_offline_exits_2_with_fetch_command(tmp_path, checkpoint_dir, clip_folder):
    folder, _ = clip_folder
    line = _error_line(_run(tmp_path, f"--frames={folder}", "--offline", "--device=cpu",
                            f"--clip_checkpoint={checkpoint_dir / 'clip_vit_large_patch14'}"))
    assert "laion_aesthetic_l14" in line and _HEAD_FETCH in line


def test_failed_download_exits_2_with_fetch_command(tmp_path, clip_folder):
    folder, _ = clip_folder
    line = _error_line(_BINARY.run_subprocess(tmp_path, f"--frames={folder}", "--device=cpu",
                                              f"--checkpoint_dir={tmp_path / 'none'}"))
    assert "download failed" in line and _HF_FETCH + f"{tmp_path / 'none'}/" in line


def test_unusable_checkpoints_exit_2(tmp_path, checkpoint_dir, clip_folder):
    folder, _ = clip_folder
    bad = tmp_path / "bad"
    (bad / "laion_aesthetic_l14").mkdir(parents=True)
    (bad / "laion_aesthetic_l14" / aesthetic.AESTHETIC_HEAD.filename).write_bytes(b"not torch")
    tiny_clip.write_vision_snapshot(bad / "clip_vit_large_patch14", projection_dim=512)
    line = _error_line(_run(tmp_path, f"--frames={folder}", f"--checkpoint_dir={bad}",
                            "--offline", "--device=cpu"))
    assert "not a usable clip_vit_large_patch14 checkpoint" in line and "projects to 512" in line
    assert _HF_FETCH + f"{bad}/clip_vit_large_patch14" in line
    line = _error_line(_run(
        tmp_path, f"--frames={folder}", f"--checkpoint_dir={bad}", "--offline", "--device=cpu",
        f"--clip_checkpoint={checkpoint_dir / 'clip_vit_large_patch14'}"))
    assert "not a usable laion_aesthetic_l14 checkpoint" in line and _HEAD_FETCH in line


@pytest.mark.parametrize("args,message", [
    (["--device=tpu"], "--device=tpu"),
    (["--frames=/no/such/clip"], "/no/such/clip"),
])
def test_bad_configuration_exits_2(tmp_path, checkpoint_dir, clip_folder, args, message):
    folder, _ = clip_folder
    done = _run(tmp_path, f"--frames={folder}", f"--checkpoint_dir={checkpoint_dir}",
                "--offline", *args)
    assert message in _error_line(done)


def test_bad_flag_exits_2(tmp_path):
    done = _run(tmp_path, "--frames=x", "--clip_activation=relu")
    assert done.returncode == 2
    assert "clip_activation" in done.stderr.splitlines()[0]


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
