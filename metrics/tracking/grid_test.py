"""The CoTracker-style query grid: layout, masking and the map back to video pixels."""

import numpy as np
import pytest

from metrics.tracking import grid


def test_layout_row_major_with_a_w_over_64_margin():
    points = grid.grid_points(30)
    assert points.shape == (900, 2)
    assert points[0].tolist() == [8.0, 8.0]
    assert points[29].tolist() == pytest.approx([504.0, 8.0])
    assert points[-1].tolist() == pytest.approx([504.0, 376.0])
    assert points[1, 0] - points[0, 0] == pytest.approx(496 / 29)
    assert grid.grid_points(1).tolist() == [[256.0, 192.0]]


def test_nearest_resize_is_floor_of_index_times_scale():
    mask = np.arange(6)[None, :].repeat(2, axis=0)
    assert grid.nearest_resize(mask, (2, 4))[0].tolist() == [0, 1, 3, 4]  # floor(i*1.5)


def test_masked_grid_keeps_points_on_the_mask():
    mask = np.zeros((480, 720), bool)
    mask[:, :360] = True  # the left half of the video
    kept = grid.masked_grid(30, mask)
    assert len(kept) == 15 * 30
    assert kept[:, 0].max() < 256
    assert len(grid.masked_grid(30, np.zeros((480, 720)))) == 0


def test_to_video_coords():
    out = grid.to_video_coords(np.array([[511.0, 383.0]]), (480, 720))
    assert out[0].tolist() == pytest.approx([719.0, 479.0])
