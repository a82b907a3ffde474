"""The video scorer on a tiny random snapshot through the real loader."""

import numpy as np
import pytest
import torch

from metrics.qalign import scorer
from metrics.qalign import tiny_snapshot


@pytest.fixture(scope="module", name="video_scorer")
def _video_scorer(tmp_path_factory):
    root = tmp_path_factory.mktemp("qalign")
    tiny_snapshot.write(root, seed=0)
    return scorer.load_video_scorer(root, "cpu")


def _windows(count=7, seed=0):
    rng = np.random.default_rng(seed)
    frames = rng.integers(0, 256, (count, 24, 40, 3), dtype=np.uint8)
    return [[frames[max(0, t - 1)], frames[t], frames[min(count - 1, t + 1)]]
            for t in range(count)]


def test_score_is_the_softmax_expectation_of_the_level_logits(video_scorer):
    windows = _windows()
    logits = video_scorer.level_logits(windows).double()
    want = (torch.softmax(logits, -1) @ torch.tensor(scorer.WEIGHTS, dtype=torch.float64))
    got = video_scorer.score_windows(windows)
    assert got.dtype == np.float64 and got.shape == (7,)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-6)
    assert ((got > 0) & (got < 1)).all() and np.ptp(got) > 1e-3  # depends on the frames


@pytest.mark.parametrize("batch_frames", [1, 3, 7, 8, 100])
def test_chunked_scores_equal_one_batch(video_scorer, batch_frames):
    windows = _windows()
    one = video_scorer.score_windows(windows, batch_frames=3 * len(windows))
    np.testing.assert_allclose(video_scorer.score_windows(windows, batch_frames), one,
                               rtol=0, atol=1e-6)


def test_bad_calls_are_refused(video_scorer):
    assert video_scorer.score_windows([]).shape == (0,)
    with pytest.raises(ValueError, match="batch_frames"):
        video_scorer.score_windows(_windows(), batch_frames=0)
    with pytest.raises(ValueError, match="one non-zero frame count"):
        video_scorer.pixels([_windows()[0], _windows()[0][:2]])
