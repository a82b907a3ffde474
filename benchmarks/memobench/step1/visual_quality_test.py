"""Tests for benchmarks.memobench.step1.visual_quality: the official reductions of frame
scores (numpy transcriptions of visual_quality.py and known answers). The models are
stood in for by fixed per-frame values; the per-frame models have their own tests in
metrics/clip and metrics/imagereward, and the families run end to end on tiny weights in
//tests:memobench_step1_models_test."""

import math

import numpy as np
import pytest

from benchmarks.memobench.step1 import visual_quality as vq
from metrics.clip import aesthetic
from metrics.clip import clipiqa
from metrics.imagereward import scoring
from metrics.video import sampling


def _frames(n):
    return np.zeros((n, 4, 4, 3), np.uint8)


def _fixed_strided(values):
    """Stands in for strided_frame_scores: the official indices, fixed scores."""

    def strided(frames, step, *args, **kwargs):
        indices = sampling.iter_indices(0, len(frames) - 1, step, len(frames))
        return sampling.FrameScores(indices, [values[k] for k in range(len(indices))])

    return strided


@pytest.mark.parametrize("values", [[5.1, 4.2, 6.33333], [4.98765, 4.98764, 4.98766]])
def test_aesthetic_is_the_rounded_mean_of_the_strided_frames(monkeypatch, values):
    monkeypatch.setattr(aesthetic, "strided_frame_scores", _fixed_strided(values))
    result = vq.aesthetic_score(_frames(11), 4, model=None, device="cpu")
    assert result.indices == [0, 4, 8] and result.frame_scores == values
    assert result.score == round(float(np.mean(values)), 4)


def test_empty_clip_scores_zero_not_nan(monkeypatch):
    monkeypatch.setattr(aesthetic, "strided_frame_scores", _fixed_strided([]))
    monkeypatch.setattr(clipiqa, "strided_frame_scores", _fixed_strided([]))
    assert vq.aesthetic_score(_frames(0), 4, None, "cpu").score == 0.0
    assert vq.image_quality(_frames(0), 4, None).score == 0.0


def test_image_quality_clips_each_frame_before_the_mean(monkeypatch):
    monkeypatch.setattr(clipiqa, "strided_frame_scores", _fixed_strided([1.2, -0.1, 0.5]))
    result = vq.image_quality(_frames(9), 4, model=None)
    assert (result.score, result.frame_scores) == (0.5, [1.2, -0.1, 0.5])
    # Clipping the mean instead would give round(mean(1.2, -0.1, 0.5), 4) = 0.5333.
    assert result.score != round(float(np.mean([1.2, -0.1, 0.5])), 4)


@pytest.mark.parametrize("num_frames,expected", [
    (81, [0, 20, 40, 60, 80]),       # most models
    (129, [0, 32, 64, 96, 128]),     # LTX-Video, Open-Sora
    (6, [0, 1, 2, 3, 5]),            # int() truncates 1.25, 2.5, 3.75
    (3, [0, 0, 1, 1, 2]),            # repeats are kept (and averaged twice)
    (1, [0, 0, 0, 0, 0]),
])
def test_image_reward_indices(num_frames, expected):
    assert vq.image_reward_indices(num_frames) == expected
    assert expected == [int(i * (num_frames - 1) / 4) for i in range(5)]


def test_image_reward_indices_refuse_nonsense():
    with pytest.raises(ValueError):
        vq.image_reward_indices(0)
    with pytest.raises(ValueError):
        vq.image_reward_indices(10, n_sample=1)


def test_sigmoid_known_answers():
    assert vq.sigmoid(0.0) == 0.5
    assert vq.sigmoid(math.log(3.0)) == pytest.approx(0.75, abs=1e-15)
    assert vq.sigmoid(-math.log(3.0)) == pytest.approx(0.25, abs=1e-15)


class _FakeReward:
    """Stands in for scoring.raw_rewards: fixed float32 rewards per call."""

    def __init__(self, raw):
        self.raw = [float(np.float32(v)) for v in raw]
        self.calls = []

    def __call__(self, reward, prompt, frames, embeds=None):
        self.calls.append((prompt, len(frames)))
        return list(self.raw)


@pytest.mark.parametrize("raw", [
    [0.0, 0.0, 0.0, 0.0, 0.0],
    [-1.3, -0.2, 0.4, 1.9, -0.75],
    [-0.98765, -0.98764, -0.98766, -1.2, 0.001],
])
def test_image_reward_is_the_rounded_mean_of_sigmoids(monkeypatch, raw):
    fake = _FakeReward(raw)
    monkeypatch.setattr(scoring, "raw_rewards", fake)
    result = vq.image_reward(_frames(81), "a fox", reward=None)
    values = np.asarray(fake.raw, dtype=np.float64)
    assert result.score == round(float(np.mean(1.0 / (1.0 + np.exp(-values)))), 4)
    assert result.indices == [0, 20, 40, 60, 80] and fake.calls == [("a fox", 5)]
    assert result.frame_scores == fake.raw


@pytest.mark.parametrize("prompt", ["", "   ", None])
def test_no_prompt_gives_none_without_calling_the_model(monkeypatch, prompt):
    fake = _FakeReward([1.0] * 5)
    monkeypatch.setattr(scoring, "raw_rewards", fake)
    result = vq.image_reward(_frames(9), prompt, reward=None)
    assert result.score is None and fake.calls == []
    assert not vq.has_prompt(prompt)


def test_nan_text_is_a_prompt():
    # run_eval.py reads an empty xlsx prompt cell as str(nan) = "nan" and scores it.
    assert vq.has_prompt("nan")


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
