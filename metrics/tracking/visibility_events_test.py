"""Visibility-event rules on hand-built tracks with known answers, thresholds at their
edges (>= vs >, strict in-frame tests, frames before/after the start)."""

import numpy as np
import pytest

from metrics.tracking import visibility_events as ev

W, H = 100.0, 50.0


def _clip(positions, visible):
    """tracks (T, N, 2) from a list per frame of point lists; visibility alike."""
    return np.array(positions, np.float32), np.array(visible, bool)


def test_invisible_fraction():
    assert ev.invisible_fraction(np.array([[1, 1, 0, 0], [0, 0, 0, 0]], bool)).tolist() == [
        0.5, 1.0]


def test_left_by_edge_counts_only_frames_after_the_start_and_needs_both_ratios():
    # 2 points; frame 2: both invisible and one outside (x > W): ratio 0.5 >= 0.5.
    tracks, vis = _clip([[[10, 10], [20, 10]], [[50, 10], [60, 10]], [[101, 10], [90, 10]]],
                        [[1, 1], [1, 1], [0, 0]])
    assert ev.left_by_edge(tracks, vis, 0, W, H, ev.AFTER, 0.8, 0.5)
    assert not ev.left_by_edge(tracks, vis, 2, W, H, ev.AFTER, 0.8, 0.5)  # t > start only
    assert not ev.left_by_edge(tracks, vis, 0, W, H, ev.AFTER, 0.8, 0.51)
    # x == W is inside (strict >): not outside.
    tracks[2, 0, 0] = W
    assert not ev.left_by_edge(tracks, vis, 0, W, H, ev.AFTER, 0.8, 0.5)
    # Emerging: frames before the start.
    tracks, vis = _clip([[[-5, 10], [-1, 10]], [[5, 10], [8, 10]]], [[0, 0], [1, 1]])
    assert ev.left_by_edge(tracks, vis, 1, W, H, ev.BEFORE, 0.85, 0.5)
    assert not ev.left_by_edge(tracks, vis, 0, W, H, ev.BEFORE, 0.85, 0.5)


def test_left_by_edge_needs_the_invisible_ratio():
    tracks, vis = _clip([[[10, 10]] * 5, [[-1, 10]] * 5], [[1] * 5, [0, 0, 0, 0, 1]])
    assert ev.left_by_edge(tracks, vis, 0, W, H, ev.AFTER, 0.8, 0.5)       # r = 0.8
    assert not ev.left_by_edge(tracks, vis, 0, W, H, ev.AFTER, 0.85, 0.5)


def test_became_small_uses_every_frame_by_default_and_q10_q90_extent():
    # 10 points clustered within 5 px: extent (q90 - q10) / W < 0.07.
    pts = [[40 + i * 0.5, 20 + i * 0.2] for i in range(10)]
    big = [[10 + i * 8, 5 + i * 4] for i in range(10)]
    tracks, vis = _clip([big, pts], [[1] * 10, [1] * 10])  # all visible: r = 0 >= -1
    assert ev.became_small(tracks, vis, 0, W, H, ev.AFTER, 0.8, 0.07)
    assert not ev.became_small(tracks, vis, 1, W, H, ev.AFTER, 0.8, 0.07)
    xs = np.array(pts)[:, 0]
    extent = (np.quantile(xs, 0.9) - np.quantile(xs, 0.1)) / W
    assert not ev.became_small(tracks, vis, 0, W, H, ev.AFTER, 0.8, extent * (1 - 1e-5))
    assert ev.became_small(tracks, vis, 0, W, H, ev.AFTER, 0.8, extent * (1 + 1e-5))


def test_became_small_is_strictly_below_the_threshold():
    pts = [[40, 20], [40, 20], [45, 20], [45, 20], [45, 20]]  # q10 40, q90 45: 0.05 of W
    tracks, vis = _clip([pts], [[1] * 5])
    assert not ev.became_small(tracks, vis, -1, W, H, ev.AFTER, 0.8, 0.05)
    assert ev.became_small(tracks, vis, -1, W, H, ev.AFTER, 0.8, 0.0501)


def test_became_small_needs_enough_points_inside_strictly():
    pts = [[40, 20], [40.5, 20], [0, 20], [41, 20], [41.5, 20]]  # x == 0 is not inside
    tracks, vis = _clip([pts, pts], [[1] * 5, [1] * 5])
    assert ev.became_small(tracks, vis, 0, W, H, ev.AFTER, 0.8, 0.07)      # 4/5 = 0.8
    assert not ev.became_small(tracks, vis, 0, W, H, ev.AFTER, 0.81, 0.07)
    one = [[[40, 20]], [[40, 20]]]
    assert not ev.became_small(*_clip(one, [[1], [1]]), 0, W, H, ev.AFTER, 0.8, 0.07)


def test_never_invisible():
    vis = np.array([[1, 1], [0, 1], [0, 0]], bool)
    assert not ev.never_invisible(vis, 0, ev.AFTER, 1.0)   # frame 2 fully invisible
    assert ev.never_invisible(vis, 2, ev.AFTER, 1.0)
    assert ev.never_invisible(vis, 2, ev.BEFORE, 0.8)      # r = 0, 0.5 before frame 2
    assert not ev.never_invisible(vis, 2, ev.BEFORE, 0.5)


def test_no_points_is_never_an_event_and_shapes_are_checked():
    tracks, vis = np.zeros((3, 0, 2)), np.zeros((3, 0), bool)
    assert not ev.left_by_edge(tracks, vis, 0, W, H, ev.AFTER, 0.8, 0.5)
    assert not ev.became_small(tracks, vis, 0, W, H, ev.AFTER, 0.8, 0.07)
    assert ev.never_invisible(vis, 0, ev.AFTER, 1.0)
    with pytest.raises(ValueError, match="visibility of shape"):
        ev.left_by_edge(np.zeros((3, 2, 2)), np.zeros((3, 3)), 0, W, H, ev.AFTER, 0.8, 0.5)
    with pytest.raises(ValueError, match="side must be"):
        ev.never_invisible(np.zeros((3, 2), bool), 0, "later", 1.0)
