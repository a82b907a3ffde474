"""The SAM box-size bug (spec §4.1 step 5), faithful and corrected, against the spec's
table of buggy/correct scale ratios; the faithful one is pinned (fails if "fixed")."""

import numpy as np
import pytest

from benchmarks.vmbench import pas_boxes as pb


@pytest.mark.parametrize("width, height, expected", [
    (720, 480, (800, 1200)), (1280, 720, (750, 1333)), (480, 832, (1332, 769)),
    (512, 512, (800, 800)), (832, 480, (769, 1332)), (1333, 800, (800, 1333)),
])
def test_groundingdino_input_size(width, height, expected):
    assert pb.groundingdino_input_size(height, width) == expected


# Spec §4.1: ratio of buggy to correct scale, (x, y) where the spec gives both.
@pytest.mark.parametrize("width, height, ratio_x, ratio_y", [
    (720, 480, 0.90, 0.94), (832, 480, 1.08, None), (848, 480, 1.1, None),
    (1280, 720, 1.7, 1.7), (1360, 768, 1.8, None), (512, 512, 0.65, None),
    (480, 832, 0.6, None),
])
def test_buggy_over_correct_scale_matches_the_spec(width, height, ratio_x, ratio_y):
    bx, by = pb.sam_box_scale(height, width, pb.SAM_BOXES_FAITHFUL)
    cx, cy = pb.sam_box_scale(height, width, pb.SAM_BOXES_CORRECTED)
    assert bx / cx == pytest.approx(ratio_x, abs=0.03)
    if ratio_y is not None:
        assert by / cy == pytest.approx(ratio_y, abs=0.04)


def test_faithful_720x480_factors_are_1024_over_800_and_four_thirds():
    # Pinned: the official code passes (3, H') as the original size.
    assert pb.sam_original_size(480, 720, pb.SAM_BOXES_FAITHFUL) == (3, 800)
    assert pb.sam_box_scale(480, 720) == (1024 / 800, 4 / 3)
    assert pb.sam_box_scale(480, 720, pb.SAM_BOXES_CORRECTED) == pytest.approx(
        (1024 / 720, 1024 / 720), rel=1e-3)


def test_boxes_for_sam_and_cxcywh():
    boxes = pb.cxcywh_to_pixels(np.array([[0.5, 0.5, 0.5, 0.5]]), 480, 720)
    assert boxes.tolist() == [[180.0, 120.0, 540.0, 360.0]]
    out = pb.boxes_for_sam(boxes, 480, 720)
    assert out[0].tolist() == pytest.approx([180 * 1.28, 120 * 4 / 3, 540 * 1.28, 360 * 4 / 3])
    with pytest.raises(ValueError, match="SAM box mode"):
        pb.boxes_for_sam(boxes, 480, 720, "fixed")
