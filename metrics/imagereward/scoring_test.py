"""Tests for metrics.imagereward.scoring: frame sampling, the sigmoid/mean/rounding
arithmetic (numpy transcription of visual_quality.py and known answers) and one clip
end to end on a tiny random ImageReward against the float64 reference forward."""

import json
import math

import numpy as np
import pytest
import torch

from metrics.clip import image_transform
from metrics.imagereward import reference_blip
from metrics.imagereward import reward_model
from metrics.imagereward import scoring
from metrics.imagereward import tiny_checkpoint


@pytest.mark.parametrize("num_frames,expected", [
    (81, [0, 20, 40, 60, 80]),       # most models
    (129, [0, 32, 64, 96, 128]),     # LTX-Video, Open-Sora
    (6, [0, 1, 2, 3, 5]),            # int() truncates 1.25, 2.5, 3.75
    (3, [0, 0, 1, 1, 2]),            # repeats are kept (and averaged twice)
    (1, [0, 0, 0, 0, 0]),
])
def test_frame_indices(num_frames, expected):
    assert scoring.frame_indices(num_frames) == expected
    assert scoring.frame_indices(num_frames) == [int(i * (num_frames - 1) / 4) for i in range(5)]


def test_frame_indices_refuse_nonsense():
    with pytest.raises(ValueError):
        scoring.frame_indices(0)
    with pytest.raises(ValueError):
        scoring.frame_indices(10, n_sample=1)


def test_sigmoid_known_answers():
    assert scoring.sigmoid(0.0) == 0.5
    assert scoring.sigmoid(math.log(3.0)) == pytest.approx(0.75, abs=1e-15)
    assert scoring.sigmoid(-math.log(3.0)) == pytest.approx(0.25, abs=1e-15)


class _FakeReward:
    """Stands in for raw_rewards: fixed float32 rewards per call."""

    def __init__(self, raw):
        self.raw = [float(np.float32(v)) for v in raw]
        self.calls = []

    def __call__(self, reward, prompt, frames):
        self.calls.append((prompt, len(frames)))
        return list(self.raw)


@pytest.mark.parametrize("raw", [
    [0.0, 0.0, 0.0, 0.0, 0.0],
    [-1.3, -0.2, 0.4, 1.9, -0.75],
    [-0.98765, -0.98764, -0.98766, -1.2, 0.001],
])
def test_score_is_the_rounded_mean_of_sigmoids(monkeypatch, raw):
    fake = _FakeReward(raw)
    monkeypatch.setattr(scoring, "raw_rewards", fake)
    frames = np.zeros((81, 8, 8, 3), np.uint8)
    result = scoring.image_reward_details(frames, "a fox", reward=None)
    values = np.asarray(fake.raw, dtype=np.float64)
    expected = round(float(np.mean(1.0 / (1.0 + np.exp(-values)))), 4)
    assert result.score == expected
    assert result.indices == [0, 20, 40, 60, 80] and fake.calls == [("a fox", 5)]
    assert result.raw == fake.raw
    pct = float(np.round(np.clip(expected * 100, 0, 100), 1))
    assert 0.0 <= pct <= 100.0 and abs(pct - expected * 100) <= 0.05 + 1e-9


def test_all_zero_rewards_give_one_half():
    frames = np.zeros((10, 4, 4, 3), np.uint8)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scoring, "raw_rewards", _FakeReward([0.0] * 5))
        assert scoring.image_reward_score(frames, "x", reward=None) == 0.5


@pytest.mark.parametrize("prompt", ["", "   ", None])
def test_no_prompt_gives_none_without_calling_the_model(monkeypatch, prompt):
    fake = _FakeReward([1.0] * 5)
    monkeypatch.setattr(scoring, "raw_rewards", fake)
    result = scoring.image_reward_details(np.zeros((9, 4, 4, 3), np.uint8), prompt, reward=None)
    assert result.score is None and fake.calls == []
    assert not scoring.has_prompt(prompt)


def test_nan_text_is_a_prompt():
    # run_eval.py reads an empty xlsx prompt cell as str(nan) = "nan" and scores it.
    assert scoring.has_prompt("nan")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tiny_checkpoint.save_tiny_image_reward(tmp_path_factory.mktemp("ckpt"), seed=5)
    folder = root / "image_reward"
    loaded = reward_model.load_image_reward(folder / "ImageReward.pt", folder / "med_config.json",
                                            root / "bert_base_uncased" / "vocab.txt", "cpu")
    state = torch.load(folder / "ImageReward.pt", weights_only=True)
    return loaded, state, json.loads((folder / "med_config.json").read_text())


def test_clip_end_to_end_equals_the_reference_forward(tiny):
    loaded, state, med = tiny
    rng = np.random.default_rng(0)
    frames = rng.integers(0, 256, (13, 120, 200, 3), dtype=np.uint8)
    prompt = "another person crossing from left to right"
    result = scoring.image_reward_details(frames, prompt, loaded)
    assert result.indices == [0, 3, 6, 9, 12]
    pixels = torch.stack([image_transform.open_clip_transform(
        image_transform.bgr_to_pil(frames[i]), 224) for i in result.indices])
    text = reward_model.tokenize(loaded, prompt, 1)
    raw = reference_blip.rewards(state, med, pixels, text["input_ids"], text["attention_mask"])
    np.testing.assert_allclose(result.raw, raw.numpy(), atol=2e-5, rtol=0)
    sig = 1.0 / (1.0 + np.exp(-raw.numpy()))
    np.testing.assert_allclose(result.sigmoid, sig, atol=1e-5, rtol=0)
    assert result.score == pytest.approx(float(np.mean(sig)), abs=5e-5 + 1e-5)
    assert result.score == round(float(np.mean(result.sigmoid)), 4)


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
