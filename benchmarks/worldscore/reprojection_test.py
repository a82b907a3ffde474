"""reprojection.py on a synthetic graph with a known answer, and the unset failure case."""

import numpy as np
import pytest
import torch

from benchmarks.worldscore import reprojection

H, W, F = 4, 5, 10.0
EDGES = [(0, 1), (1, 0), (1, 2), (2, 1), (0, 2)]
TX = [0.0, 0.4, 1.0]  # camera x positions; inverse depth 0.5 everywhere


def _reproject():
    """Pinhole reprojection of a fronto-parallel plane under x translations (numpy)."""
    y, x = np.mgrid[0:H, 0:W].astype(np.float64)
    coords = [np.stack([x + F * (TX[i] - TX[j]) * 0.5, y], -1) for i, j in EDGES]
    return np.stack(coords)[None]  # [1, E, H, W, 2]


def _graph(offsets, valid):
    coords1 = torch.tensor(_reproject(), dtype=torch.float32)
    target = coords1[0] + torch.tensor(offsets, dtype=torch.float32)[:, None, None, :]
    target = target.permute(0, 3, 1, 2).contiguous()  # BA layout [E, 2, H, W]
    return coords1, torch.tensor(valid, dtype=torch.float32)[..., None], target


def test_known_answer_3_4_5():
    valid = np.ones((1, len(EDGES), H, W))
    coords1, mask, target = _graph([(3.0, 4.0)] * len(EDGES), valid)
    assert reprojection.reprojection_error(coords1, mask, target) == 5.0


def test_only_valid_pixels_count_and_the_mean_is_over_pixels_not_edges():
    valid = np.ones((1, len(EDGES), H, W))
    valid[0, 0] = 0                    # edge 0 fully invalid (its huge offset must not count)
    valid[0, 1, :, :3] = 0             # edge 1: 2 of 5 columns valid -> 8 pixels
    offsets = [(300.0, 400.0), (0.0, 0.5), (0.0, 1.0), (0.0, 1.0), (0.0, 1.0)]
    coords1, mask, target = _graph(offsets, valid)
    want = (8 * 0.5 + 3 * 20 * 1.0) / (8 + 60)  # below the 1.0719 range end
    got = reprojection.reprojection_error(coords1, mask, target)
    assert got == pytest.approx(want, rel=1e-6)
    score, normalized = reprojection.result(coords1, mask, target)
    assert score == got and normalized == pytest.approx(1 - want / 1.0719, rel=1e-6)


def test_no_valid_pixel_is_the_official_unset_failure():
    coords1, mask, target = _graph([(1.0, 1.0)] * len(EDGES), np.zeros((1, len(EDGES), H, W)))
    with pytest.raises(reprojection.ReprojectionUnset, match="never set"):
        reprojection.reprojection_error(coords1, mask, target)
    assert reprojection.result(coords1, mask, target) == (100, 0.0)


def test_float32_arithmetic():
    valid = np.ones((1, 1, 1, 1))
    coords1 = torch.tensor([[[[[0.1, 0.2]]]]])
    target = torch.tensor([[[[0.3]], [[0.5]]]])
    got = reprojection.reprojection_error(coords1, torch.tensor(valid)[..., None], target)
    want = np.sqrt(np.float32(np.float32(0.1) - np.float32(0.3)) ** 2
                   + np.float32(np.float32(0.2) - np.float32(0.5)) ** 2, dtype=np.float32)
    assert got == float(want)


def test_shapes_are_checked():
    coords1, mask, target = _graph([(1.0, 1.0)] * len(EDGES), np.ones((1, len(EDGES), H, W)))
    with pytest.raises(ValueError, match=r"target must be \[5, 2, 4, 5\]"):
        reprojection.reprojection_error(coords1, mask, target.permute(0, 2, 3, 1))
    with pytest.raises(ValueError, match="valid must be"):
        reprojection.reprojection_error(coords1, mask[..., 0], target)
