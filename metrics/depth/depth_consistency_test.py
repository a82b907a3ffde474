"""Tests for metrics.depth.depth_consistency: the arithmetic and the batched clip path.

The arithmetic is checked against a numpy float64 transcription written here; the clip
path against per-frame model calls of a tiny random Depth Anything. (A benchmark's
rounding of these values is tested with the benchmark.)
"""

import os

os.environ["HF_HUB_OFFLINE"] = "1"  # before huggingface_hub reads it at import
# pylint: disable=wrong-import-position

import numpy as np
import pytest

from metrics.depth import depth_anything
from metrics.depth import depth_consistency
from metrics.depth import tiny_checkpoint


def _numpy_vector(depth):
    depth = np.asarray(depth, dtype=np.float64)
    depth = (depth - depth.min()) / (depth.max() - depth.min() + 1e-8)
    flat = depth.ravel()
    return flat / max(np.linalg.norm(flat), 1e-12)


def _numpy_call(depths):
    """One span's sampled maps: clipped pair cosines, their mean and min."""
    if len(depths) < 2:
        return [], None, None
    vectors = [_numpy_vector(d) for d in depths]
    sims = []
    for a, b in zip(vectors[:-1], vectors[1:]):
        cosine = a @ b / max(np.linalg.norm(a) * np.linalg.norm(b), 1e-8)
        sims.append(float(np.clip(cosine, 0.0, 1.0)))
    return sims, float(np.mean(sims)), float(np.min(sims))


def _maps(count, seed, shape=(21, 37)):
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.5, 5.0, shape)
    return [(base + rng.normal(0, s, shape)).astype(np.float32)
            for s in rng.uniform(0.1, 2.0, count)]


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    folder = tiny_checkpoint.save_tiny_depth_anything(tmp_path_factory.mktemp("ckpt"), seed=1)
    return depth_anything.load_depth_anything(folder, "cpu")


@pytest.mark.parametrize("start,end,num_frames,expected", [
    (0, 10, 30, (0, 10, [0, 5, 10])),
    (0, 9, 30, (0, 9, [0, 4, 9])),
    (20, 29, 30, (20, 29, [20, 24, 29])),
    (3, 4, 30, (3, 4, [3, 3, 4])),
    (7, 7, 30, (7, 7, [])),        # n_range == 1
    (29, 29, 30, (29, 29, [])),
    (25, 40, 30, (25, 29, [25, 27, 29])),  # end clamped to N-1
    (0, 0, 1, (0, 0, [])),
])
def test_span_indices(start, end, num_frames, expected):
    assert depth_consistency.span_indices(start, end, num_frames) == expected


def test_pair_similarities_match_numpy_on_random_maps():
    maps = _maps(3, seed=0)
    sims = depth_consistency.pair_similarities(maps)
    ref, _, _ = _numpy_call(maps)
    np.testing.assert_allclose(sims, ref, atol=1e-6, rtol=0)
    assert 0.5 < min(sims) < max(sims) < 1.0


def test_min_max_normalisation_removes_scale_and_offset():
    depth = _maps(1, seed=3)[0]
    assert depth_consistency.pair_similarities([depth, depth * 7 + 3, depth]) == pytest.approx(
        [1.0, 1.0], abs=1e-6)


def test_constant_map_is_a_zero_vector_and_scores_zero():
    flat = np.full((10, 12), 4.0, dtype=np.float32)
    varied = _maps(1, seed=4, shape=(10, 12))[0]
    vector = depth_consistency.depth_vector(flat)
    assert float(vector.abs().max()) == 0.0  # (d - min) / (0 + 1e-8) = 0 everywhere
    assert depth_consistency.pair_similarities([flat, varied, flat]) == [0.0, 0.0]
    assert _numpy_call([flat, varied, flat])[0] == [0.0, 0.0]


def test_eps_keeps_a_tiny_range_finite():
    # The eps scales a map uniformly, which the L2 normalisation removes: it only
    # decides the constant map (0 rather than 0/0 = NaN, above) and stays finite here.
    depth = np.zeros((4, 4), dtype=np.float32)
    depth[0, 0] = 1e-9  # range far below the 1e-8 eps: (d - min) / (1e-9 + 1e-8)
    vector = depth_consistency.depth_vector(depth)
    assert np.isfinite(vector.numpy()).all() and float(vector.norm()) == pytest.approx(1.0)


def test_negative_cosine_impossible_but_clip_is_applied():
    # Min-max maps are >= 0, so cosines are >= 0; a single-pixel swap gives exactly 0.
    a = np.zeros((2, 2), dtype=np.float32)
    a[0, 0] = 1.0
    b = np.zeros((2, 2), dtype=np.float32)
    b[1, 1] = 1.0
    assert depth_consistency.pair_similarities([a, b]) == [0.0]


def _clip(num_frames, seed=0):
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 256, (60, 96, 3)).astype(np.float64)
    steps = rng.normal(0, 14, (num_frames, 60, 96, 3)).cumsum(axis=0)
    return np.clip(base[None] + steps, 0, 255).astype(np.uint8)


def test_clip_path_is_one_batched_call_matching_per_frame_calls(loaded):
    model, processor = loaded
    frames = _clip(16)
    calls = []
    handle = model.register_forward_hook(lambda m, a, kw, out: calls.append(kw), with_kwargs=True)
    try:
        result = depth_consistency.depth_consistency_details(
            frames, [("V", 0, 6), ("R", 10, 15)], model, processor, "cpu")
    finally:
        handle.remove()
    assert [(p.name, p.start, p.end, p.indices) for p in result.spans] == [
        ("V", 0, 6, (0, 3, 6)), ("R", 10, 15, (10, 12, 15))]
    assert len(calls) == 1 and calls[0]["pixel_values"].shape[0] == 6
    single = {i: depth_anything.depth_maps(model, processor, [frames[i]], "cpu")[0].numpy()
              for i in (0, 3, 6, 10, 12, 15)}
    for phase in result.spans:
        sims, mean, minimum = _numpy_call([single[i] for i in phase.indices])
        np.testing.assert_allclose(phase.pair_similarities, sims, atol=1e-5, rtol=0)
        assert (phase.mean, phase.min) == pytest.approx((mean, minimum), abs=1e-5)
    v, r = result.spans
    assert (result.mean, result.min) == ((v.mean + r.mean) / 2, min(v.min, r.min))


def test_shared_boundary_frame_and_single_frame_span(loaded):
    model, processor = loaded
    frames = _clip(6, seed=1)
    calls = []
    handle = model.register_forward_hook(lambda m, a, kw, out: calls.append(kw), with_kwargs=True)
    try:
        result = depth_consistency.depth_consistency_details(
            frames, [("V", 0, 5), ("R", 5, 5)], model, processor, "cpu")
    finally:
        handle.remove()
    phase_v, phase_r = result.spans
    assert (phase_v.indices, phase_r.indices) == ((0, 2, 5), ())
    assert (phase_r.pair_similarities, phase_r.mean, phase_r.min) == ((), None, None)
    assert calls[0]["pixel_values"].shape[0] == 3
    assert (result.mean, result.min) == (phase_v.mean, phase_v.min)  # spans with a pair


def test_depth_maps_computed_elsewhere_give_the_same_result(loaded):
    model, processor = loaded
    frames = _clip(10, seed=2)
    spans = [("V", 0, 4), ("R", 6, 9)]
    calls, distinct = depth_consistency.span_calls(spans, 10)
    assert distinct == [0, 2, 4, 6, 7, 9]
    maps = depth_anything.depth_maps(model, processor, [frames[i] for i in distinct], "cpu")
    from_maps = depth_consistency.consistency_from_depths(
        calls, {i: m.numpy() for i, m in zip(distinct, maps)})
    assert from_maps == depth_consistency.depth_consistency_details(frames, spans, model,
                                                                    processor, "cpu")


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
