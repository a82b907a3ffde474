"""The official grid procedure around the network, pinned with a scripted stand-in model.

The stand-in returns known answers: every point moves +1 px in x per frame counted from
its query frame (t - t_query, so -1 px per frame BEFORE it); visibility is 0.9 exactly
for even points and 0.95 for odd ones; confidence is 0 (so it would zero everything if
it were multiplied in, as co-tracker's ONLINE predictor does).
"""

import numpy as np
import pytest
import torch

from metrics.tracking import grid as numpy_grid
from metrics.tracking.cotracker3 import predictor as predictor_lib


class ScriptedModel(torch.nn.Module):

    def __init__(self):
        super().__init__()
        self.anchor = torch.nn.Parameter(torch.zeros(()))
        self.calls = []

    def forward(self, video, queries, iters):
        self.calls.append((video.clone(), queries.clone(), iters))
        frames, count = video.shape[1], queries.shape[1]
        steps = torch.arange(frames, dtype=torch.float32)[:, None] - queries[0, :, 0][None]
        coords = queries[:, None, :, 1:].repeat(1, frames, 1, 1).clone()
        coords[0, :, :, 0] += steps
        vis = torch.where(torch.arange(count) % 2 == 0, 0.9, 0.95).expand(1, frames, count)
        return coords, vis.clone(), torch.zeros(1, frames, count)


def _predictor(resolution=(384, 512)):
    model = ScriptedModel()
    return predictor_lib.CoTracker3Predictor(model, resolution), model


def _video(frames=5, height=60, width=90):
    return torch.rand(1, frames, 3, height, width, generator=torch.Generator().manual_seed(0)) * 255


def test_grid_equals_the_independent_numpy_grid():
    ours = predictor_lib.grid_points(30, (384, 512))[0].numpy()
    np.testing.assert_allclose(ours, numpy_grid.grid_points(30), atol=1e-4)
    assert ours[0].tolist() == [8.0, 8.0] and ours[-1].tolist() == [504.0, 376.0]
    assert predictor_lib.grid_points(1, (384, 512)).tolist() == [[[256.0, 192.0]]]


def test_masked_grid_equals_the_independent_numpy_mask_rule():
    mask = np.zeros((97, 131), np.uint8)
    mask[20:70, 30:100] = 255
    ours = predictor_lib.masked_grid(12, (384, 512), torch.from_numpy(mask)[None, None])
    np.testing.assert_allclose(ours[0].numpy(), numpy_grid.masked_grid(12, mask), atol=1e-4)
    as_bool = predictor_lib.masked_grid(12, (384, 512), torch.from_numpy(mask > 0)[None, None])
    assert torch.equal(as_bool, ours)


def test_video_is_resized_bilinearly_with_aligned_corners_to_the_model_frame():
    predictor, model = _predictor()
    video = _video()
    predictor.track(video, grid_size=3)
    expected = torch.nn.functional.interpolate(video[0], (384, 512), mode="bilinear",
                                               align_corners=True)
    assert torch.equal(model.calls[0][0][0], expected)
    assert model.calls[0][2] == 6


def test_support_grid_only_with_a_mask_and_removed_from_the_output():
    predictor, model = _predictor()
    video = _video()
    tracks, visible = predictor.track(video, grid_size=3)
    assert model.calls[-1][1].shape[1] == 9 and tracks.shape == (1, 5, 9, 2)
    mask = torch.ones(1, 1, 60, 90, dtype=torch.uint8)
    tracks, visible = predictor.track(video, grid_size=3, grid_query_frame=2, segm_mask=mask)
    queries = model.calls[-1][1][0]
    assert queries.shape[0] == 9 + 36 and visible.shape == (1, 5, 9)
    assert torch.all(queries[:9, 0] == 2) and torch.all(queries[9:, 0] == 0)
    torch.testing.assert_close(queries[9:, 1:], predictor_lib.grid_points(6, (384, 512))[0])


def test_empty_mask_gives_no_points():
    predictor, model = _predictor()
    tracks, visible = predictor.track(_video(), grid_size=4, segm_mask=torch.zeros(1, 1, 60, 90))
    assert tracks.shape == (1, 5, 0, 2) and visible.shape == (1, 5, 0)
    assert model.calls[0][1].shape[1] == 36


def test_backward_tracks_replace_frames_before_the_query_frame():
    predictor, model = _predictor()
    video = _video(frames=6)
    tracks, _ = predictor.track(video, grid_size=2, grid_query_frame=3, backward_tracking=True)
    assert len(model.calls) == 2
    back_video, back_queries, _ = model.calls[1]
    assert torch.equal(back_video, model.calls[0][0].flip(1))
    assert torch.all(back_queries[0, :, 0] == 6 - 3 - 1)
    start = predictor_lib.grid_points(2, (384, 512))[0]
    scale = torch.tensor([89 / 511, 59 / 383])
    for t in range(6):
        # Before frame 3 the reversed call's answer: (5 - t) - (6 - 3 - 1) = 3 - t px; the
        # forward call alone would say t - 3.
        moved = start + torch.tensor([float(abs(t - 3)), 0.0])
        torch.testing.assert_close(tracks[0, t], moved * scale)


def test_backward_call_is_skipped_only_when_nothing_precedes_a_query_frame():
    predictor, model = _predictor()
    video = _video()
    mask = torch.ones(1, 1, 60, 90)
    skipped = predictor.track(video, grid_size=3, backward_tracking=True, segm_mask=mask)
    assert len(model.calls) == 1
    resized, queries, _ = model.calls[0]
    coords, vis = predictor._run(resized, queries)
    merged = predictor._merge_backward(resized, queries, coords, vis)
    assert torch.equal(merged[0], coords) and torch.equal(merged[1], vis)  # nothing replaced
    forward_only = predictor.track(video, grid_size=3, segm_mask=mask)
    assert torch.equal(forward_only[0], skipped[0]) and torch.equal(forward_only[1], skipped[1])
    predictor.track(video, grid_size=3, grid_query_frame=1, backward_tracking=True,
                    segm_mask=mask)
    assert len(model.calls) == 4 + 2  # 4 so far (track, _run, merge, track), then both ways


def test_visibility_is_sigmoid_above_0_9_confidence_unused_query_frame_forced_visible():
    predictor, _ = _predictor()
    _, visible = predictor.track(_video(), grid_size=2, grid_query_frame=1)
    expected = torch.tensor([False, True, False, True]).expand(5, 4).clone()
    expected[1] = True  # the query frame
    assert torch.equal(visible[0], expected)


def test_query_frame_positions_are_the_query_points_rescaled_by_size_minus_one():
    predictor, _ = _predictor()
    tracks, _ = predictor.track(_video(height=239, width=427), grid_size=2, grid_query_frame=4)
    start = predictor_lib.grid_points(2, (384, 512))[0]
    torch.testing.assert_close(tracks[0, 4], start * torch.tensor([426 / 511, 238 / 383]))
    assert tracks.dtype == torch.float32


@pytest.mark.parametrize("kwargs, message", [
    (dict(video=torch.zeros(2, 3, 3, 8, 8)), "video tensor"),
    (dict(video=torch.zeros(1, 3, 3, 8, 8, dtype=torch.uint8)), "float video"),
    (dict(grid_size=0), "grid_size"),
    (dict(grid_query_frame=5), "outside the clip"),
    (dict(segm_mask=torch.zeros(60, 90)), "mask"),
])
def test_bad_arguments_raise(kwargs, message):
    predictor, _ = _predictor()
    args = dict(video=_video(), grid_size=2)
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        predictor.track(**args)
