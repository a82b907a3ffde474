"""The top-down arithmetic against hand-computed answers and independent constructions."""

import cv2
import numpy as np
import pytest

from metrics.pose import topdown


def test_center_scale_is_the_padded_box():
    center, scale = topdown.bbox_center_scale(np.array([10, 20, 110, 220], np.float32))
    np.testing.assert_array_equal(center, [60, 120])
    np.testing.assert_array_equal(scale, [125, 250])
    assert center.dtype == np.float32 and scale.dtype == np.float32
    with pytest.raises(ValueError, match=r"\(4,\)"):
        topdown.bbox_center_scale(np.zeros((1, 4)))


@pytest.mark.parametrize("scale, expected", [
    ((100.0, 100.0), (100.0, 100 / 0.75)),   # too wide for 3:4: grow the height
    ((30.0, 100.0), (75.0, 100.0)),           # too tall: grow the width
    ((75.0, 100.0), (75.0, 100.0)),           # exact (w > h * 0.75 is false): unchanged
])
def test_fix_aspect_ratio(scale, expected):
    fixed = topdown.fix_aspect_ratio(np.array(scale, np.float32), 0.75)
    np.testing.assert_allclose(fixed, expected, rtol=1e-6)
    assert fixed.dtype == np.float32


def test_warp_matrix_is_scale_and_translate():
    center, scale = np.array([60, 120], np.float32), np.array([150, 200], np.float32)
    matrix = topdown.warp_matrix(center, scale, (192, 256))
    sx, sy = 192 / 150, 256 / 200  # aspect fixed: both 1.28
    expected = [[sx, 0, 96 - 60 * sx], [0, sy, 128 - 120 * sy]]
    np.testing.assert_allclose(matrix, expected, atol=1e-4)


def test_crop_matches_a_hand_built_warp_and_round_trips():
    rng = np.random.default_rng(0)
    image = rng.integers(0, 256, (90, 120, 3), dtype=np.uint8)
    box = np.array([20, 10, 70, 80], np.float32)  # w 50, h 70 -> scale 62.5 x 87.5 -> 3:4
    crop, center, scale = topdown.crop(image, box, (192, 256))
    np.testing.assert_array_equal(center, [45, 45])
    np.testing.assert_allclose(scale, [65.625, 87.5], rtol=1e-6)  # width grown to 3:4
    s = 256 / 87.5
    matrix = np.array([[s, 0, 96 - 45 * s], [0, s, 128 - 45 * s]])
    reference = cv2.warpAffine(image, matrix, (192, 256), flags=cv2.INTER_LINEAR)
    assert crop.shape == (256, 192, 3) and crop.dtype == np.uint8
    assert np.abs(crop.astype(int) - reference.astype(int)).max() <= 1
    # an image point through the matrix and back through to_image
    point = np.array([[33.0, 57.0]])
    inside = point * s + [96 - 45 * s, 128 - 45 * s]
    np.testing.assert_allclose(topdown.to_image(inside, center, scale, (192, 256)), point,
                               atol=1e-4)


def test_simcc_decode_takes_argmax_and_the_smaller_maximum():
    x = np.zeros((1, 3, 8), np.float32)
    y = np.zeros((1, 3, 6), np.float32)
    x[0, 0, 5], y[0, 0, 2] = 0.9, 0.4     # score = min = 0.4
    x[0, 1, 1], y[0, 1, 4] = 0.2, 0.7     # score 0.2
    x[0, 2] -= 1.0                        # max x = -1 -> score <= 0 -> location -1
    y[0, 2, 3] = 0.5
    points, scores = topdown.decode_simcc(x, y, 2.0)
    np.testing.assert_allclose(scores, [[0.4, 0.2, -1.0]])
    np.testing.assert_array_equal(points, [[[2.5, 1.0], [0.5, 2.0], [-0.5, -0.5]]])
    with pytest.raises(ValueError, match="SimCC"):
        topdown.simcc_maximum(x[0], y)


def test_flip_average_swaps_left_right_and_reverses_x():
    x = np.arange(17 * 4, dtype=np.float32).reshape(1, 17, 4)
    y = np.arange(17 * 3, dtype=np.float32).reshape(1, 17, 3)
    fx, fy = x * 10, y * 10
    ax, ay = topdown.flip_average(x, y, fx, fy)
    # keypoint 1 (left eye) averages with the flipped right eye (2), x reversed
    np.testing.assert_allclose(ax[0, 1], (x[0, 1] + fx[0, 2, ::-1]) / 2)
    np.testing.assert_allclose(ay[0, 1], (y[0, 1] + fy[0, 2]) / 2)
    np.testing.assert_allclose(ax[0, 0], (x[0, 0] + fx[0, 0, ::-1]) / 2)  # nose stays
    assert sorted(topdown.COCO17_FLIP_INDICES) == list(range(17))
