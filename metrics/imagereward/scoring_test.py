"""Tests for metrics.imagereward.scoring: rewards of frames on a tiny random ImageReward
against the float64 reference forward."""

import json

import numpy as np
import pytest
import torch

from metrics.clip import image_transform
from metrics.imagereward import reference_blip
from metrics.imagereward import reward_model
from metrics.imagereward import scoring
from metrics.imagereward import tiny_checkpoint


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tiny_checkpoint.save_tiny_image_reward(tmp_path_factory.mktemp("ckpt"), seed=5)
    folder = root / "image_reward"
    loaded = reward_model.load_image_reward(folder / "ImageReward.pt", folder / "med_config.json",
                                            root / "bert_base_uncased" / "vocab.txt", "cpu")
    state = torch.load(folder / "ImageReward.pt", weights_only=True)
    return loaded, state, json.loads((folder / "med_config.json").read_text())


def test_rewards_equal_the_reference_forward(tiny):
    loaded, state, med = tiny
    rng = np.random.default_rng(0)
    frames = list(rng.integers(0, 256, (5, 120, 200, 3), dtype=np.uint8))
    prompt = "another person crossing from left to right"
    rewards = scoring.raw_rewards(loaded, prompt, frames)
    pixels = torch.stack([image_transform.open_clip_transform(
        image_transform.bgr_to_pil(frame), 224) for frame in frames])
    text = reward_model.tokenize(loaded, prompt, 1)
    raw = reference_blip.rewards(state, med, pixels, text["input_ids"], text["attention_mask"])
    np.testing.assert_allclose(rewards, raw.numpy(), atol=2e-5, rtol=0)


@pytest.mark.parametrize("prompt,frames,message", [
    ("", [np.zeros((8, 8, 3), np.uint8)], "non-blank prompt"),
    ("  ", [np.zeros((8, 8, 3), np.uint8)], "non-blank prompt"),
    ("a fox", [], "at least one frame"),
])
def test_refuses_what_it_cannot_score(prompt, frames, message):
    with pytest.raises(ValueError, match=message):
        scoring.raw_rewards(None, prompt, frames)


def test_frames_are_bgr_and_their_order_matters(tiny):
    loaded, _, _ = tiny
    rng = np.random.default_rng(1)
    frames = rng.integers(0, 256, (5, 64, 64, 3), dtype=np.uint8)
    forward = scoring.raw_rewards(loaded, "the fox", list(frames))
    swapped = scoring.raw_rewards(loaded, "the fox", [f[:, :, ::-1].copy() for f in frames])
    assert forward != swapped  # channel order reaches the model
    single = [scoring.raw_rewards(loaded, "the fox", [f])[0] for f in frames]
    np.testing.assert_allclose(forward, single, atol=1e-5, rtol=0)  # batching is harmless


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
