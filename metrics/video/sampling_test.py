"""Tests for metrics.video.sampling."""

import pytest

from metrics.video import sampling


def test_iter_indices():
    assert sampling.iter_indices(0, 10, 3, 100) == [0, 3, 6, 9]
    assert sampling.iter_indices(-5, 4, 2, 100) == [0, 2, 4]
    assert sampling.iter_indices(5, 100, 1, 8) == [5, 6, 7]
    assert sampling.iter_indices(9, 3, 1, 20) == []
    with pytest.raises(ValueError):
        sampling.iter_indices(0, 10, 0, 20)


def test_resample_gt_indices():
    assert sampling.resample_gt_indices(3, 9, 0) == []
    assert sampling.resample_gt_indices(3, 9, -2) == []
    assert sampling.resample_gt_indices(3, 9, 1) == [3]
    assert sampling.resample_gt_indices(4, 4, 3) == [4, 4, 4]
    assert sampling.resample_gt_indices(0, 10, 3) == [0, 5, 10]
    # 0, 2.5, 5, 7.5, 10 -> half to even gives 2 and 8.
    assert sampling.resample_gt_indices(0, 10, 5) == [0, 2, 5, 8, 10]
    assert sampling.resample_gt_indices(10, 0, 3) == [10, 5, 0]
    assert sampling.resample_gt_indices(0, 2, 5) == [0, 0, 1, 2, 2]


def test_evenly_spaced():
    assert sampling.evenly_spaced(0, 80, 9) == [0, 10, 20, 30, 40, 50, 60,
                                                70, 80]
    # 27..54: n_range 28, steps of 27/8 = 3.375 truncated.
    assert sampling.evenly_spaced(27, 54, 9) == [27, 30, 33, 37, 40, 43, 47,
                                                 50, 54]
    assert sampling.evenly_spaced(5, 5, 9) == [5]
    assert sampling.evenly_spaced(5, 3, 9) == [5]
    assert sampling.evenly_spaced(0, 3, 6) == [0, 0, 1, 1, 2, 3]
    assert sampling.evenly_spaced(4, 9, 1) == [4]
    with pytest.raises(ValueError):
        sampling.evenly_spaced(0, 10, 0)


def test_resample_to_length():
    assert sampling.resample_to_length(5, 1) == [0]
    assert sampling.resample_to_length(5, 5) == [0, 1, 2, 3, 4]
    assert sampling.resample_to_length(10, 4) == [0, 3, 6, 9]
    # 0, 0.5, 1, 1.5, 2 -> 0, 0, 1, 2, 2 (half to even).
    assert sampling.resample_to_length(3, 5) == [0, 0, 1, 2, 2]
    assert sampling.resample_to_length(1, 3) == [0, 0, 0]
    with pytest.raises(ValueError):
        sampling.resample_to_length(0, 3)
    with pytest.raises(ValueError):
        sampling.resample_to_length(3, 0)


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
