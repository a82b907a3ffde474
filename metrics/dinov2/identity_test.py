"""Tests for metrics.dinov2.identity: the official arithmetic and the batched clip path.

The arithmetic is checked against a numpy float64 transcription of spec §4.3 written
here; the clip path against per-frame model calls of a tiny random DINOv2.
"""

import os

os.environ["HF_HUB_OFFLINE"] = "1"  # before huggingface_hub reads it at import
# pylint: disable=wrong-import-position

import numpy as np
import pytest
import torch

from metrics.dinov2 import backbone
from metrics.dinov2 import identity
from metrics.dinov2 import tiny_checkpoint


def _numpy_identity(anchor, frames):
    """In numpy: per-patch clamp(cos), top int(P*0.4), mean/min per frame, then over frames."""
    anchor = np.asarray(anchor, dtype=np.float64)
    top_k = max(1, int(anchor.shape[0] * 0.4))
    means, mins = [], []
    for tokens in np.asarray(frames, dtype=np.float64):
        sims = np.clip((anchor * tokens).sum(axis=-1), 0.0, 1.0)
        top = np.sort(sims)[::-1][:top_k]
        means.append(top.mean())
        mins.append(top.min())
    return means, mins, float(np.mean(means)), float(np.min(mins))


def _unit(x):
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def _tokens_with_cosines(cosines, dim=8):
    """(anchor, frame) whose per-patch cosines are exactly `cosines`."""
    cosines = np.asarray(cosines, dtype=np.float64)
    anchor = np.zeros((len(cosines), dim))
    anchor[:, 0] = 1.0
    frame = np.zeros((len(cosines), dim))
    frame[:, 0] = cosines
    frame[:, 1] = np.sqrt(1.0 - cosines ** 2)
    return anchor.astype(np.float32), frame[None].astype(np.float32)


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    folder = tiny_checkpoint.save_tiny_dinov2(tmp_path_factory.mktemp("ckpt"), seed=3)
    return backbone.load_dinov2(folder, "cpu")


@pytest.mark.parametrize("start,end,num_frames,expected", [
    (10, 29, 30, [10, 12, 14, 17, 19, 21, 24, 26, 29]),
    (3, 40, 30, [3, 6, 9, 12, 16, 19, 22, 25, 29]),  # end clamped to N-1
    (4, 2, 30, [4]),  # end before start: [start]
])
def test_span_indices(start, end, num_frames, expected):
    assert identity.span_indices(start, end, num_frames) == expected


def test_arithmetic_matches_numpy_on_random_tokens():
    rng = np.random.default_rng(7)
    anchor = _unit(rng.normal(size=(256, 48))).astype(np.float32)
    noise = rng.normal(size=(9, 256, 48)) * rng.uniform(0.2, 3.0, size=(9, 1, 1))
    frames = _unit(anchor[None] + noise).astype(np.float32)
    frames[4, :40] *= -1  # some negative cosines, clamped to 0
    means, mins = identity.per_frame_identity(torch.from_numpy(anchor), torch.from_numpy(frames))
    ref_means, ref_mins, ref_mean, ref_min = _numpy_identity(anchor, frames)
    np.testing.assert_allclose(means, ref_means, atol=1e-6, rtol=0)
    np.testing.assert_allclose(mins, ref_mins, atol=1e-6, rtol=0)
    got = identity.identity_from_tokens(anchor, frames)  # numpy input accepted too
    assert got == pytest.approx((ref_mean, ref_min), abs=1e-6)
    assert got != (round(got[0], 4), round(got[1], 4))  # unrounded: rounding is a benchmark's
    assert 0.0 < got[1] < got[0] < 1.0


def test_top_k_takes_exactly_102_of_256_patches():
    # 101 patches at 0.9, one at 0.8, the rest at 0.5: the 102nd value is 0.8.
    cosines = [0.9] * 101 + [0.8] + [0.5] * 154
    anchor, frame = _tokens_with_cosines(np.random.default_rng(0).permutation(cosines))
    means, mins = identity.per_frame_identity(anchor, frame)
    assert means[0] == pytest.approx((101 * 0.9 + 0.8) / 102, abs=1e-6)
    assert mins[0] == pytest.approx(0.8, abs=1e-6)
    assert identity.identity_from_tokens(anchor, frame) == pytest.approx(
        ((101 * 0.9 + 0.8) / 102, 0.8), abs=1e-6)


def test_negative_cosines_clamp_to_zero():
    anchor, frame = _tokens_with_cosines([-0.7] * 200 + [0.6] * 56)
    means, mins = identity.per_frame_identity(anchor, frame)
    assert mins[0] == 0.0
    assert means[0] == pytest.approx(56 * 0.6 / 102, abs=1e-6)
    assert identity.identity_from_tokens(anchor, -anchor[None]) == (0.0, 0.0)


def test_identical_frames_score_one_and_aggregate_is_mean_of_means_min_of_mins():
    anchor, low = _tokens_with_cosines([0.5] * 256)
    frames = np.concatenate([anchor[None], low])
    assert identity.identity_from_tokens(anchor, frames) == pytest.approx((0.75, 0.5), abs=1e-6)


def test_shape_mismatch_is_rejected():
    with pytest.raises(ValueError, match="expected anchor"):
        identity.per_frame_identity(np.zeros((256, 8)), np.zeros((2, 255, 8)))
    with pytest.raises(ValueError, match="at least one"):
        identity.per_frame_identity(np.zeros((256, 8)), np.zeros((0, 256, 8)))


def _clip(num_frames, seed=0):
    """A slowly drifting random clip, BGR uint8."""
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 256, (90, 120, 3)).astype(np.float64)
    steps = rng.normal(0, 12, (num_frames, 90, 120, 3)).cumsum(axis=0)
    return np.clip(base[None] + steps, 0, 255).astype(np.uint8)


def test_clip_path_is_one_batched_call_matching_per_frame_calls(model):
    frames = _clip(20)
    calls = []
    handle = model.register_forward_hook(lambda m, args, kw, out: calls.append(kw), with_kwargs=True)
    try:
        result = identity.identity_details(frames, 11, 19, model, "cpu")
    finally:
        handle.remove()
    assert result.indices == (11, 12, 13, 14, 15, 16, 17, 18, 19)
    assert len(calls) == 1 and calls[0]["pixel_values"].shape[0] == 10
    anchor = backbone.patch_tokens(model, [frames[0]], "cpu")[0]
    single = torch.cat([backbone.patch_tokens(model, [frames[i]], "cpu") for i in result.indices])
    ref_means, ref_mins, ref_mean, ref_min = _numpy_identity(anchor.numpy(), single.numpy())
    np.testing.assert_allclose(result.frame_means, ref_means, atol=1e-5, rtol=0)
    np.testing.assert_allclose(result.frame_mins, ref_mins, atol=1e-5, rtol=0)
    assert result.mean == pytest.approx(ref_mean, abs=1e-5)
    assert result.min == pytest.approx(ref_min, abs=1e-5)


def test_duplicate_indices_share_one_forward_row(model):
    frames = _clip(8, seed=1)
    calls = []
    handle = model.register_forward_hook(lambda m, args, kw, out: calls.append(kw), with_kwargs=True)
    try:
        result = identity.identity_details(frames, 0, 7, model, "cpu")  # whole clip, 0 sampled
    finally:
        handle.remove()
    assert result.indices == (0, 0, 1, 2, 3, 4, 5, 6, 7)
    assert calls[0]["pixel_values"].shape[0] == 8
    assert result.frame_means[0] == pytest.approx(1.0, abs=1e-5)  # frame 0 against itself


def test_single_frame_span(model):
    frames = _clip(6, seed=2)
    result = identity.identity_details(frames, 5, 5, model, "cpu")
    assert result.indices == (5,)
    assert (result.mean, result.min) == (result.frame_means[0], result.frame_mins[0])


def test_tokens_computed_elsewhere_give_the_same_result(model):
    frames = _clip(12, seed=3)
    indices, distinct = identity.model_frames(7, 11, 12)
    assert (indices, distinct) == ([7, 7, 8, 8, 9, 9, 10, 10, 11], [0, 7, 8, 9, 10, 11])
    rows = backbone.patch_tokens(model, [frames[i] for i in distinct], "cpu").numpy()
    from_rows = identity.identity_from_frame_tokens(indices, distinct, rows)
    assert from_rows == identity.identity_details(frames, 7, 11, model, "cpu")


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
