"""CoTracker2 online predictor: queries, resizing, scaling back, visibility cut, state."""

import numpy as np
import pytest
import torch

from metrics.tracking import online_history
from metrics.tracking.cotracker2 import config as config_lib
from metrics.tracking.cotracker2 import model as model_lib
from metrics.tracking.cotracker2 import predictor as predictor_lib
from metrics.tracking.cotracker2 import tiny_checkpoint


def _predictor(visible_above=predictor_lib.VISIBLE_ABOVE, vis_bias=0.0):
    network = model_lib.CoTracker2(config_lib.TINY)
    network.load_state_dict(tiny_checkpoint.seeded_state_dict(config_lib.TINY, 3, vis_bias))
    return predictor_lib.CoTracker2OnlinePredictor(network.eval(), visible_above)


def _video(frames=11, height=30, width=41, seed=0):
    gen = torch.Generator().manual_seed(seed)
    return torch.rand(1, frames, 3, height, width, generator=gen) * 255


def test_first_step_sets_a_grid_over_the_working_frame_and_returns_nothing():
    tracker = _predictor()
    assert tracker(video_chunk=_video(), is_first_step=True, grid_size=3) == (None, None)
    height, width = config_lib.TINY.model_resolution
    margin = width / 64
    ys, xs = np.meshgrid(np.linspace(margin, height - margin, 3),
                         np.linspace(margin, width - margin, 3), indexing="ij")
    want = np.stack([np.zeros(9), xs.ravel(), ys.ravel()], -1)
    np.testing.assert_allclose(tracker.queries[0].numpy(), want, atol=1e-5)
    assert tracker.step == 4 and tracker.device == torch.device("cpu")


@torch.no_grad()
def test_calls_return_the_network_history_scaled_to_the_video():
    video = _video()
    tracker = _predictor()
    tracker(video_chunk=video, is_first_step=True, grid_size=2)
    network = tracker.model
    height, width = config_lib.TINY.model_resolution
    state = model_lib.OnlineState()
    for ind in online_history.chunk_starts(11, tracker.step):
        chunk = video[:, ind:ind + 8]
        tracks, visible = tracker(video_chunk=chunk)
        resized = torch.nn.functional.interpolate(
            chunk[0], (height, width), mode="bilinear", align_corners=True)[None]
        want, prob = network.online_step(resized, tracker.queries, state, iters=6)
        scale = torch.tensor([40 / (width - 1), 29 / (height - 1)])
        torch.testing.assert_close(tracks, want * scale, rtol=0, atol=0)
        assert torch.equal(visible, prob > 0.6)
    assert tracks.shape[1] == online_history.history_lengths(11, 8)[-1] == 11


@torch.no_grad()
def test_given_queries_are_scaled_to_the_working_frame_and_first_step_resets():
    tracker = _predictor()
    video = _video()
    queries = torch.tensor([[[0.0, 40.0, 29.0], [2.0, 0.0, 14.5]]])
    tracker(video_chunk=video, is_first_step=True, queries=queries)
    height, width = config_lib.TINY.model_resolution
    np.testing.assert_allclose(tracker.queries[0].numpy(),
                               [[0, width - 1, height - 1], [2, 0, (height - 1) / 2]], atol=1e-5)
    first, _ = tracker(video_chunk=video[:, :8])
    tracker(video_chunk=video[:, 4:12])
    tracker(video_chunk=video, is_first_step=True, queries=queries)
    again, _ = tracker(video_chunk=video[:, :8])
    torch.testing.assert_close(first, again, rtol=0, atol=0)


def test_visibility_cut_and_call_order():
    video = _video()
    low, high = _predictor(0.6, vis_bias=1.0), _predictor(0.9, vis_bias=1.0)
    for tracker in (low, high):
        with pytest.raises(RuntimeError, match="is_first_step"):
            tracker(video_chunk=video[:, :8])
        tracker(video_chunk=video, is_first_step=True, grid_size=3)
    _, seen_low = low(video_chunk=video[:, :8])
    _, seen_high = high(video_chunk=video[:, :8])
    assert seen_high.sum() <= seen_low.sum()
    assert (seen_high <= seen_low).all()
    with pytest.raises(ValueError, match="grid_size"):
        low(video_chunk=video, is_first_step=True, grid_size=0)
