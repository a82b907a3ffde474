"""Tests for metrics.video.resize."""

import cv2
import numpy as np
import pytest

from metrics.video.resize import check_max_side, resize_max_side


def _frame(h, w, seed=0):
    return np.random.default_rng(seed).integers(0, 256, (h, w, 3), np.uint8)


@pytest.mark.parametrize("shape", [(100, 50), (640, 480), (360, 640)])
def test_never_upscales(shape):
    frame = _frame(*shape)
    assert resize_max_side(frame, 640) is frame


@pytest.mark.parametrize(
    "hw, max_side, expected_hw",
    [
        ((1080, 1920), 640, (360, 640)),
        ((1920, 1080), 640, (640, 360)),
        ((333, 1000), 640, (213, 640)),  # 333 * 0.64 = 213.12
        ((1000, 333), 640, (640, 213)),
        ((641, 641), 640, (640, 640)),
    ],
)
def test_output_size(hw, max_side, expected_hw):
    assert resize_max_side(_frame(*hw), max_side).shape[:2] == expected_hw


@pytest.mark.parametrize(
    "hw, expected_hw",
    [
        # Scale is exactly 0.5, so sides land exactly on .5 and Python's
        # round goes to the even neighbour (round-half-up would differ).
        ((5, 1000), (2, 500)),  # 2.5 -> 2
        ((7, 1000), (4, 500)),  # 3.5 -> 4
        ((333, 1000), (166, 500)),  # 166.5 -> 166
        ((1000, 333), (500, 166)),
    ],
)
def test_half_to_even_rounding(hw, expected_hw):
    assert resize_max_side(_frame(*hw), 500).shape[:2] == expected_hw


def test_matches_cv2_inter_area():
    frame = _frame(1080, 1920, seed=3)
    got = resize_max_side(frame, 640)
    want = cv2.resize(frame, (640, 360), interpolation=cv2.INTER_AREA)
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got, want)
    linear = cv2.resize(frame, (640, 360), interpolation=cv2.INTER_LINEAR)
    assert not np.array_equal(got, linear)


def test_odd_scale_matches_cv2_inter_area():
    frame = _frame(333, 1000, seed=4)
    want = cv2.resize(frame, (640, 213), interpolation=cv2.INTER_AREA)
    np.testing.assert_array_equal(resize_max_side(frame, 640), want)


def test_grayscale_frame():
    frame = _frame(200, 400)[..., 0]
    assert resize_max_side(frame, 100).shape == (50, 100)


@pytest.mark.parametrize("bad", [0, -1, 1.5, 640.0, "640", None, True])
def test_bad_max_side(bad):
    with pytest.raises(ValueError, match="max_side"):
        resize_max_side(_frame(10, 10), bad)
    with pytest.raises(ValueError):
        check_max_side(bad)


def test_numpy_int_max_side():
    assert resize_max_side(_frame(20, 40), np.int64(10)).shape == (5, 10, 3)


def test_bad_frames():
    with pytest.raises(ValueError):
        resize_max_side([[1, 2], [3, 4]], 1)
    with pytest.raises(ValueError):
        resize_max_side(np.zeros((0, 5, 3), np.uint8), 4)
    with pytest.raises(ValueError, match="zero-sized"):
        resize_max_side(_frame(1, 3000), 640)


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))


def test_max_side_size_is_the_size_resize_max_side_gives():
    from metrics.video.resize import max_side_size
    for shape, max_side in (((480, 832, 3), 640), ((720, 1280), 640), ((5, 7), 3),
                            ((369, 640, 3), 640), ((10, 10), 640)):
        frame = np.zeros(shape, np.uint8)
        size = max_side_size(shape, max_side)
        out = resize_max_side(frame, max_side)
        if size is None:
            assert out is frame
        else:
            assert out.shape[:2] == (size[1], size[0])
    with pytest.raises(ValueError, match="zero-sized"):
        max_side_size((1, 300), 100)
    with pytest.raises(ValueError, match="empty side"):
        max_side_size((0, 3), 100)
