"""metrics.clip.temporal_consistency with a stand-in tower whose embedding is the mean
normalised colour, on flat frames: known embeddings, numpy formula."""

import numpy as np
import pytest

from metrics.clip import tiny_clip
from metrics.clip import temporal_consistency

_RGB = [(200, 30, 30), (190, 40, 60), (20, 30, 220), (200, 30, 30)]


def _numpy_score(features):
    f = np.asarray(features, np.float64)
    f = f / np.linalg.norm(f, axis=1, keepdims=True)
    pairs = [(max(0.0, f[t - 1] @ f[t]) + max(0.0, f[0] @ f[t])) / 2 for t in range(1, len(f))]
    return sum(pairs) / len(pairs)


def test_rgb_frames_reach_the_tower_as_images():
    tower = tiny_clip.mean_colour_tower()
    frames = [tiny_clip.flat_frame(rgb[::-1])[:, :, ::-1] for rgb in _RGB]  # RGB arrays
    want = [tiny_clip.reference_embedding(tower.model, tiny_clip.flat_frame(rgb[::-1]))
            for rgb in _RGB]
    features = temporal_consistency.frame_features(frames, tower, batch_size=3)
    np.testing.assert_allclose(features, np.stack(want), atol=1e-5)
    got = temporal_consistency.score(frames, tower)
    assert got == pytest.approx(_numpy_score(np.stack(want)), abs=1e-6)
    swapped = temporal_consistency.score([f[:, :, ::-1] for f in frames], tower)
    assert abs(swapped - got) > 1e-4  # channel order matters


def test_one_frame_is_an_error():
    tower = tiny_clip.mean_colour_tower()
    with pytest.raises(ValueError, match="N >= 2"):
        temporal_consistency.score([tiny_clip.flat_frame((1, 2, 3))], tower)
