"""The keyframe identity matching of TCS on hand-built masks; its quirks pinned."""

import math

import numpy as np
import pytest

from benchmarks.vmbench import tcs_ids


def _box(y0, y1, x0, x1, shape=(20, 20)):
    mask = np.zeros(shape, bool)
    mask[y0:y1, x0:x1] = True
    return mask


def test_iou():
    assert tcs_ids.mask_iou(_box(0, 10, 0, 10), _box(0, 10, 0, 5)) == 0.5
    assert math.isnan(tcs_ids.mask_iou(np.zeros((2, 2)), np.zeros((2, 2))))
    with pytest.raises(ValueError, match="different shapes"):
        tcs_ids.mask_iou(np.zeros((2, 2)), np.zeros((3, 2)))


def test_new_masks_take_matching_ids_or_new_ones():
    previous = {1: _box(0, 10, 0, 10), 2: _box(10, 20, 10, 20)}
    same_as_2 = _box(10, 20, 10, 20)
    new_object = _box(0, 5, 15, 20)
    matched, count = tcs_ids.match_masks([same_as_2, new_object], previous, 2)
    assert sorted(matched) == [2, 3] and count == 3


def test_iou_must_exceed_the_threshold_strictly():
    previous = {1: _box(0, 10, 0, 8)}
    at_threshold = _box(0, 10, 0, 6)          # IoU 60/80 = 0.75: not > 0.75
    matched, count = tcs_ids.match_masks([at_threshold], previous, 1)
    assert list(matched) == [2] and count == 2
    matched, count = tcs_ids.match_masks([at_threshold], previous, 1, iou_threshold=0.7)
    assert list(matched) == [1] and count == 1


def test_empty_new_masks_are_dropped():
    matched, count = tcs_ids.match_masks([np.zeros((20, 20), bool)], {}, 0)
    assert matched == {} and count == 0


def test_two_new_masks_on_one_object_collapse_into_it():
    """Quirk (official): both take id 1; the later replaces the earlier."""
    previous = {1: _box(0, 10, 0, 10)}
    a, b = _box(0, 10, 0, 10), _box(0, 10, 1, 10)
    matched, count = tcs_ids.match_masks([a, b], previous, 1)
    assert list(matched) == [1] and count == 1
    assert (matched[1] == b).all()


def test_first_matching_previous_object_wins():
    previous = {4: _box(0, 10, 0, 10), 2: _box(0, 10, 0, 10)}
    matched, _ = tcs_ids.match_masks([_box(0, 10, 0, 10)], previous, 4)
    assert list(matched) == [4]


def test_no_detection_carries_the_previous_objects_over_empty_ones_included():
    previous = {1: _box(0, 10, 0, 10), 2: np.zeros((20, 20), bool)}
    carried = tcs_ids.carry_over(previous)
    assert sorted(carried) == [1, 2] and carried is not previous
