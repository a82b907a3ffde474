"""Tests for metrics.clip.frame_similarity: per-pair CLIP cosines against a per-image reference."""

import numpy as np
import pytest

from metrics.clip import frame_similarity
from metrics.clip import tiny_clip
from metrics.clip import reference_transform
from metrics.clip import vision
from metrics.testing.isolation import no_real_caches  # noqa: F401  (autouse fixture)


@pytest.fixture(scope="module")
def tower(tmp_path_factory):
    """(in-memory tower, loaded ClipVision), B/32-sized projection."""
    root = tmp_path_factory.mktemp("ckpt")
    model = tiny_clip.write_vision_snapshot(root / "clip", projection_dim=512, seed=11)
    return model, vision.load_clip_vision(root / "clip", "cpu", activation="quick_gelu")


def test_cosines_match_per_image_reference(tower):
    model, loaded = tower
    gen = np.stack([reference_transform.smooth_frame(48, 64, seed=i) for i in range(6)])
    ref = [reference_transform.smooth_frame(90, 120, seed=100 + i) for i in range(10)]
    calls = []

    def ref_at(indices):
        calls.append(list(indices))
        return [ref[i] for i in indices]

    pairs = [(9, 0), (2, 5), (2, 3)]
    got = frame_similarity.pair_similarities(gen, ref_at, pairs, loaded)
    assert calls == [[9, 2, 2]]
    expected = [float(np.dot(tiny_clip.reference_embedding(model, ref[r]),
                             tiny_clip.reference_embedding(model, gen[g]))) for r, g in pairs]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_negative_cosines_are_kept():
    fake = tiny_clip.mean_colour_tower()
    dark, bright = tiny_clip.flat_frame((0, 0, 0)), tiny_clip.flat_frame((255, 255, 255))
    gen = np.stack([dark, bright])
    got = frame_similarity.pair_similarities(gen, lambda idx: [bright] * len(idx),
                                             [(0, 0), (0, 1)], fake)
    # dark vs bright normalise to nearly opposite directions; bright vs bright: 1.
    assert got[0] < -0.9
    assert got[1] == pytest.approx(1.0, abs=1e-6)


def test_no_pairs_calls_nothing():
    def never(indices):
        raise AssertionError("not called")

    assert frame_similarity.pair_similarities(np.zeros((2, 4, 4, 3), np.uint8), never, [],
                                              model=None) == []


def test_bad_inputs_raise(tower):
    _, loaded = tower
    gen = np.stack([tiny_clip.flat_frame((10, 20, 30))] * 4)
    with pytest.raises(ValueError, match="returned 2 frames for 3 indices"):
        frame_similarity.pair_similarities(gen, lambda idx: [gen[0], gen[1]],
                                           [(0, 0), (1, 1), (2, 2)], loaded)
    with pytest.raises(ValueError, match="generated index 4 out of range for 4 frames"):
        frame_similarity.pair_similarities(gen, lambda idx: [gen[0]], [(0, 4)], loaded)


def test_spec_names_the_official_model():
    spec = frame_similarity.CLIP_VIT_B32
    assert spec.hf_repo == "openai/clip-vit-base-patch32"
    assert spec.snapshot and spec.name == "clip_vit_base_patch32"


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
