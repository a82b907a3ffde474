"""The weight-free LK grid tracker on a clip with known motion: a textured square moving
N px per frame over a static textured background."""

import numpy as np
import pytest

from metrics.tracking import grid
from metrics.tracking import lk_tracker
from metrics.tracking import motion_degree
from tools.fixtures import vmbench_clips

DIAG = float(np.hypot(vmbench_clips.WIDTH, vmbench_clips.HEIGHT))
MARGIN = 12  # beyond LK's 21x21 window from the square's border


def _eroded(mask, margin=MARGIN):
    rows, cols = np.nonzero(mask)
    inner = np.zeros_like(mask)
    inner[rows.min() + margin:rows.max() + 1 - margin,
          cols.min() + margin:cols.max() + 1 - margin] = True
    return inner


@pytest.mark.parametrize("step", [2, 4])
def test_square_moving_n_px_per_frame(step):
    """Points away from the square's border (LK's window sees only the square) move
    exactly N px per frame; background points away from its path do not move."""
    frames, mask = vmbench_clips.square_clip(step)
    tracks, visible = lk_tracker.track_grid(frames, 30, _eroded(mask))
    t = len(frames)
    assert tracks.shape[0] == t and visible.all()
    expected = step * (t - 1) / DIAG
    subject = motion_degree.motion_degree(tracks, 512, 384)
    assert subject == pytest.approx(expected, rel=0.01)
    swept = _swept(mask, step, t)
    far = ~_dilated(swept)
    bg_tracks, _ = lk_tracker.track_grid(frames, 30, far)
    background = motion_degree.motion_degree(bg_tracks, 512, 384)
    assert background < 0.01 * expected
    assert motion_degree.net_subject_motion(subject, background) == pytest.approx(
        expected, rel=0.03)


def _swept(mask, step, frames):
    out = mask.copy()
    for t in range(1, frames):
        out[:, step * t:] |= mask[:, :mask.shape[1] - step * t]
    return out


def _dilated(mask, margin=MARGIN):
    rows, cols = np.nonzero(mask)
    out = np.zeros_like(mask)
    out[max(rows.min() - margin, 0):rows.max() + 1 + margin,
        max(cols.min() - margin, 0):cols.max() + 1 + margin] = True
    return out


def test_whole_frame_grid_is_bounded_by_the_square_and_its_path():
    """No mask: between (points well inside the square) and (points on the square's
    swept path, which the square drags along as it passes), each x N px per frame."""
    frames, mask = vmbench_clips.square_clip(4)
    tracks, _ = lk_tracker.track_grid(frames, 30)
    full = 4 * (len(frames) - 1) / DIAG
    low = len(grid.masked_grid(30, _eroded(mask))) / 900 * full
    high = len(grid.masked_grid(30, _dilated(_swept(mask, 4, len(frames))))) / 900 * full
    value = motion_degree.motion_degree(tracks, 512, 384)
    assert low < value < high


def test_static_clip_has_no_motion_and_query_frame_backward():
    frames, _ = vmbench_clips.square_clip(0)
    tracks, _ = lk_tracker.track_grid(frames, 10)
    assert motion_degree.motion_degree(tracks, 512, 384) < 1e-3
    moving, mask = vmbench_clips.square_clip(3)
    tracks, visible = lk_tracker.track_grid(moving, 10, query_frame=12)
    assert visible[12].all() and tracks.shape == (25, 100, 2)
    with pytest.raises(ValueError, match="outside the clip"):
        lk_tracker.track_grid(moving, 10, query_frame=25)


def test_resizes_to_the_working_frame_and_maps_back():
    frames, mask = vmbench_clips.square_clip(4, size=(240, 480), square=96)
    tracks, _ = lk_tracker.track_grid(frames, 20, mask)
    dx = tracks[-1, :, 0] - tracks[0, :, 0]
    assert np.median(dx) == pytest.approx(4 * 24, rel=0.05)  # video pixels
