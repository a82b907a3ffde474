"""Tests for the //metrics/imagereward:image_reward binary: its main called in-process
(binary_runner.run_in_process) and, for the required --prompt, run as a subprocess.

A tiny random ImageReward is saved in a temporary --checkpoint_dir in the official
files' layout; every cache points inside tmp and HF_HUB_OFFLINE=1 (binary_runner), so
nothing can be downloaded. Expected values come from metrics.imagereward.scoring run
in-process on the same frames (PNG is lossless) and the same checkpoint.
"""

import dataclasses
import shutil

import numpy as np
import pytest

from metrics.imagereward import reward_model
from metrics.imagereward import scoring
from metrics.imagereward import tiny_checkpoint
from metrics.testing import binary_runner

_PROMPT = "another person crossing from left to right"


_BINARY = binary_runner.Binary("metrics/imagereward", "image_reward",
                                "metrics.imagereward.cli")


@pytest.fixture(autouse=True)
def _random_weights_unpinned(monkeypatch):
    """The tiny weights are random: the pinned sha256s cannot match them (the pins
    themselves are tested beside the specs)."""
    for name in ('IMAGE_REWARD', 'MED_CONFIG', 'BERT_VOCAB'):
        monkeypatch.setattr(reward_model, name,
                            dataclasses.replace(getattr(reward_model, name), sha256=""))


@pytest.fixture(scope="module")
def checkpoint_dir(tmp_path_factory):
    return tiny_checkpoint.save_tiny_image_reward(tmp_path_factory.mktemp("ckpt"), seed=4)


@pytest.fixture(scope="module")
def clip_folder(tmp_path_factory):
    return binary_runner.random_walk_clip(tmp_path_factory.mktemp("clip"), 11, 60, 100, 20)


def test_json_matches_library(tmp_path, checkpoint_dir, clip_folder):
    folder, frames = clip_folder
    record = _BINARY.run_json(tmp_path, f"--frames={folder}",
                              f"--prompt={_PROMPT}", f"--checkpoint_dir={checkpoint_dir}",
                              "--offline")
    weights = checkpoint_dir / "image_reward"
    vocab = checkpoint_dir / "bert_base_uncased" / "vocab.txt"
    model = reward_model.load_image_reward(weights / "ImageReward.pt",
                                           weights / "med_config.json", vocab, "cpu")
    assert record["indices"] == [0, 2, 5, 7, 10]
    expected = scoring.raw_rewards(model, _PROMPT, [frames[i] for i in record["indices"]])
    np.testing.assert_allclose(record["rewards"], expected, atol=1e-6)
    assert record["mean_reward"] == pytest.approx(float(np.mean(expected)), abs=1e-6)
    assert "ImageRewardScore" not in record  # a benchmark's sigmoid and rounding, not ours
    assert (record["num_frames"], record["frame_size"]) == (11, [100, 60])
    assert record["prompt"] == _PROMPT
    sources = {name: c["source"] for name, c in record["checkpoints"].items()}
    assert sources == {"weights": "checkpoint_dir", "med_config": "checkpoint_dir",
                       "vocab": "checkpoint_dir"}


def test_explicit_files_and_text_output(tmp_path, checkpoint_dir, clip_folder):
    folder, _ = clip_folder
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for name in ("ImageReward.pt", "med_config.json"):  # med_config found beside the weights
        shutil.copy(checkpoint_dir / "image_reward" / name, elsewhere / name)
    done = _BINARY.run(tmp_path, f"--frames={folder}", f"--prompt={_PROMPT}",
                       f"--checkpoint={elsewhere / 'ImageReward.pt'}",
                       f"--tokenizer_vocab={checkpoint_dir / 'bert_base_uncased'}",
                       "--offline", "--device=cpu")
    assert done.returncode == 0, done.stderr
    assert f"weights:              {elsewhere / 'ImageReward.pt'}" in done.stdout
    assert f"med_config:           {elsewhere / 'med_config.json'}" in done.stdout
    assert "mean reward:          " in done.stdout


def test_num_samples(tmp_path, checkpoint_dir, clip_folder):
    folder, _ = clip_folder
    record = _BINARY.run_json(tmp_path, f"--frames={folder}", f"--prompt={_PROMPT}",
                              f"--checkpoint_dir={checkpoint_dir}", "--offline",
                              "--num_samples=3")
    assert record["indices"] == [0, 5, 10] and len(record["rewards"]) == 3


@pytest.mark.parametrize("prompt", ["", "   "])
def test_blank_prompt_exits_2(tmp_path, clip_folder, prompt):
    folder, _ = clip_folder
    done = _BINARY.run(tmp_path, f"--frames={folder}", f"--prompt={prompt}",
                       f"--checkpoint_dir={tmp_path}", "--offline")
    assert done.returncode == 2 and "--prompt is blank" in done.stderr


def test_missing_checkpoint_offline_exits_2_with_fetch_command(tmp_path, clip_folder):
    folder, _ = clip_folder
    empty = tmp_path / "checkpoints"
    empty.mkdir()
    done = _BINARY.run(tmp_path, f"--frames={folder}", f"--prompt={_PROMPT}",
                       f"--checkpoint_dir={empty}", "--offline", "--device=cpu")
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert ("huggingface-cli download THUDM/ImageReward ImageReward.pt --revision "
            f"{reward_model.IMAGE_REWARD_REVISION} --local-dir {empty}/image_reward") in lines[0]


def test_wrong_weights_exit_2(tmp_path, checkpoint_dir, clip_folder):
    folder, _ = clip_folder
    broken = tmp_path / "broken"
    shutil.copytree(checkpoint_dir, broken)
    (broken / "image_reward" / "ImageReward.pt").write_bytes(b"garbage")
    done = _BINARY.run(tmp_path, f"--frames={folder}", f"--prompt={_PROMPT}",
                       f"--checkpoint_dir={broken}", "--offline", "--device=cpu")
    assert done.returncode == 2, done.stderr
    assert "not a usable ImageReward checkpoint" in done.stderr


def test_prompt_is_required(tmp_path, clip_folder):
    folder, _ = clip_folder
    done = _BINARY.run_subprocess(tmp_path, f"--frames={folder}")  # required under __main__
    assert done.returncode == 2 and "prompt" in done.stderr


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
