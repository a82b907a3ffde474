"""metrics.temporal_consistency.consistency against a numpy transcription of the formula."""

import numpy as np
import pytest

from metrics.temporal_consistency import consistency


def _numpy_score(features):
    f = features / np.linalg.norm(features, axis=1, keepdims=True)
    total = 0.0
    for t in range(1, len(f)):
        total += (max(0.0, float(f[t - 1] @ f[t])) + max(0.0, float(f[0] @ f[t]))) / 2
    return total / (len(f) - 1)


@pytest.mark.parametrize("count", [2, 3, 17])
def test_matches_numpy_transcription(count):
    features = np.random.default_rng(count).normal(size=(count, 24))
    got = consistency.first_and_adjacent_consistency(features.astype(np.float32))
    assert got == pytest.approx(_numpy_score(features), abs=1e-6)


def test_negative_cosines_are_clamped_to_zero():
    features = np.array([[1.0, 0.0], [-1.0, 0.0], [1.0, 0.0]], np.float32)
    # t=1: prev -1 -> 0, first -1 -> 0; t=2: prev -1 -> 0, first 1: (0 + 1) / 2.
    assert consistency.pair_scores(features) == [0.0, 0.5]
    assert consistency.first_and_adjacent_consistency(features) == 0.25


def test_static_clip_scores_one_and_scale_does_not_matter():
    features = np.ones((5, 8), np.float32) * np.arange(1, 6)[:, None]
    assert consistency.first_and_adjacent_consistency(features) == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("shape", [(1, 4), (4,), (2, 3, 4)])
def test_rejects_fewer_than_two_frames_or_bad_shape(shape):
    with pytest.raises(ValueError, match="N >= 2"):
        consistency.first_and_adjacent_consistency(np.ones(shape))


def test_zero_embedding_is_a_clear_error():
    with pytest.raises(ValueError, match="all zeros"):
        consistency.pair_scores(np.array([[1.0, 0.0], [0.0, 0.0]]))
