"""Tests for metrics.motion_masks.overlap against per-frame loop references.

The references are plain loops over frames with the arithmetic of a typical
reference implementation (per-frame logical_and/or sums, np.mean of each
float32 frame, sums over a boolean selection). All comparisons are exact (==):
counts are integers, and the float sums keep the loops' order and dtype.
"""

import numpy as np
import pytest

from metrics.motion_masks import overlap


def _loop_iou(masks_a, masks_b, empty):
    values = []
    for a, b in zip(masks_a, masks_b):
        inter = np.logical_and(a, b).sum()
        union = np.logical_or(a, b).sum()
        values.append(empty if union == 0 else inter / union)
    return values


def _loop_collapse(masks):
    return (np.max(masks, axis=0) > 0).astype(np.uint8) * 255


def _loop_fraction(masks):
    return np.sum(list(masks), axis=0, dtype=np.uint16) / len(masks)


def _loop_weighted(wa, wb, empty, active_only):
    low, high = np.minimum(wa, wb), np.maximum(wa, wb)
    if active_only:
        keep = high > 0
        if np.sum(keep) == 0:
            return empty
        return np.sum(low[keep]) / np.sum(high[keep])
    if np.sum(high) == 0:
        return empty
    return np.sum(low) / np.sum(high)


def _loop_mse(frames_a, frames_b):
    return [
        np.mean((a.astype(np.float32) - b.astype(np.float32)) ** 2)
        for a, b in zip(frames_a, frames_b)
    ]


def _masks(seed, count, shape, density):
    rng = np.random.default_rng(seed)
    masks = (rng.random((count,) + shape) < density).astype(np.uint8)
    masks[0] = 0  # an empty frame, as a first motion mask always is
    return masks


@pytest.mark.parametrize("shape", [(12, 16, 3), (12, 16)])
@pytest.mark.parametrize("seed", range(3))
def test_per_frame_iou_matches_loop(shape, seed):
    a = _masks(seed, 20, shape, 0.2)
    b = _masks(seed + 50, 23, shape, 0.3)  # longer: zip keeps 20 frames
    ours = overlap.per_frame_iou(a, b, empty_value=1.0)
    expected = _loop_iou(a, b, 1.0)
    assert len(ours) == 20 and ours == expected
    assert ours[0] == 1.0 and all(type(v) is float for v in ours)
    # Boolean input (e.g. thresholded masks) gives the same numbers.
    assert overlap.per_frame_iou(a > 0, b > 0, empty_value=1.0) == expected


def test_empty_union_value_is_the_callers():
    empty = np.zeros((3, 4, 4), np.uint8)
    assert overlap.per_frame_iou(empty, empty, empty_value=1.0) == [1.0] * 3
    assert overlap.per_frame_iou(empty, empty, empty_value=0.5) == [0.5] * 3
    assert overlap.collapsed_iou(empty, empty, empty_value=1.0) == 1.0
    assert overlap.per_frame_iou(empty[:0], empty, empty_value=1.0) == []


@pytest.mark.parametrize("seed", range(3))
def test_collapsed_iou_matches_loop(seed):
    a = _masks(seed, 9, (10, 14, 3), 0.03)
    b = _masks(seed + 9, 7, (10, 14, 3), 0.04)
    expected = _loop_iou([_loop_collapse(a)], [_loop_collapse(b)], 1.0)[0]
    assert overlap.collapsed_iou(a, b, empty_value=1.0) == expected
    assert np.array_equal(overlap.collapsed(a), _loop_collapse(a) > 0)


def test_three_channel_counts_differ_from_channel_zero():
    # Decoded grey masks can differ between channels; over H x W x 3 every
    # channel counts, over channel 0 only one does.
    a = np.zeros((1, 4, 4, 3), np.uint8)
    b = np.zeros((1, 4, 4, 3), np.uint8)
    a[0, :2, :, :] = 1
    b[0, :2, :, 0] = 1  # same in channel 0, absent in channels 1-2
    assert overlap.per_frame_iou(a, b, empty_value=1.0) == [1 / 3]
    assert overlap.per_frame_iou(a[..., 0], b[..., 0], empty_value=1.0) == [1.0]


@pytest.mark.parametrize("seed", [4, 7, 8, 9, 11])
def test_weighted_iou_matches_loop_in_both_summation_orders(seed):
    rng = np.random.default_rng(seed)
    a = rng.random((37, 24, 32, 3)) < 0.15
    b = rng.random((37, 24, 32, 3)) < 0.15
    a[:, :, :16] = False
    b[:, :12] = False
    wa = overlap.active_fraction(a, count_dtype=np.uint16)
    wb = overlap.active_fraction(b, count_dtype=np.uint16)
    assert np.array_equal(wa, _loop_fraction(a)) and wa.dtype == np.float64
    for active_only in (True, False):
        ours = overlap.weighted_iou(wa, wb, empty_value=1.0, active_only=active_only)
        assert ours == _loop_weighted(wa, wb, 1.0, active_only)


def test_weighted_iou_summation_order_matters_in_the_last_bits():
    # Seed 4 (found by search): the two orders differ by 1-2 ulp. A change that
    # merged them would break bit-exactness with one of the two references.
    rng = np.random.default_rng(4)
    a = rng.random((37, 24, 32, 3)) < 0.15
    b = rng.random((37, 24, 32, 3)) < 0.15
    a[:, :, :16] = False
    b[:, :12] = False
    wa = overlap.active_fraction(a, count_dtype=np.uint16)
    wb = overlap.active_fraction(b, count_dtype=np.uint16)
    active = overlap.weighted_iou(wa, wb, empty_value=1.0, active_only=True)
    total = overlap.weighted_iou(wa, wb, empty_value=1.0, active_only=False)
    assert active != total and abs(active - total) < 1e-15


def test_weighted_iou_empty_value():
    zero = np.zeros((4, 5))
    for active_only in (True, False):
        assert overlap.weighted_iou(zero, zero, empty_value=1.0, active_only=active_only) == 1.0


def test_active_fraction_count_wraps_in_the_given_dtype():
    masks = np.ones((300, 2, 2), np.uint8)
    assert np.all(overlap.active_fraction(masks, count_dtype=np.uint16) == 1.0)
    # uint8 wraps past 255: 300 % 256 = 44 active frames counted.
    assert np.all(overlap.active_fraction(masks, count_dtype=np.uint8) == 44 / 300)


@pytest.mark.parametrize("shape", [(12, 16, 3), (54, 96, 3)])
def test_per_frame_mse_matches_per_frame_float32_mean(shape):
    rng = np.random.default_rng(3)
    a = rng.integers(0, 256, (11,) + shape, dtype=np.uint8) / 255.0  # float64
    b = rng.integers(0, 256, (11,) + shape, dtype=np.uint8) / 255.0
    ours = overlap.per_frame_mse(a, b)
    expected = _loop_mse(a, b)
    assert ours == [float(v) for v in expected]
    assert all(type(v) is float for v in ours)
    # float32, not float64: the float64 mean differs.
    assert ours != [float(np.mean((x - y) ** 2)) for x, y in zip(a, b)]


def test_per_frame_mse_requires_equal_frame_counts():
    frames = np.zeros((3, 4, 4, 3))
    with pytest.raises(ValueError, match="frame counts differ"):
        overlap.per_frame_mse(frames, frames[:2])
    with pytest.raises(ValueError, match="shapes differ"):
        overlap.per_frame_mse(frames, np.zeros((3, 4, 5, 3)))
