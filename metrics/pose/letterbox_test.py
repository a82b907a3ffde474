"""Detector letterbox, box rescaling and the greedy NMS against hand-computed answers."""

import numpy as np
import pytest

from metrics.pose import letterbox


@pytest.mark.parametrize("hw, expected", [
    ((480, 720), (427, 640)),    # 640 / 720 = 0.888..: 426.67 + 0.5 -> 427
    ((720, 1280), (360, 640)),
    ((100, 50), (640, 320)),     # upscaled: the long side reaches 640
    ((640, 640), (640, 640)),
])
def test_rescale_size(hw, expected):
    assert letterbox.rescale_size(*hw, (640, 640)) == expected


def test_letterbox_pads_bottom_right_with_114():
    image = np.full((480, 720, 3), 7, np.uint8)
    padded, factor = letterbox.letterbox(image)
    assert padded.shape == (640, 640, 3)
    assert (padded[:427] == 7).all() and (padded[427:] == 114).all()
    assert factor == (640 / 720, 427 / 480)
    with pytest.raises(ValueError, match="H, W, C"):
        letterbox.letterbox(image[..., 0])


def test_boxes_to_image_clamps_to_the_padded_input_then_rescales():
    boxes = np.array([[-5, 10, 700, 600], [64, 32, 128, 96]], np.float32)
    out = letterbox.boxes_to_image(boxes, (640, 640), (0.5, 0.25))
    np.testing.assert_allclose(out, [[0, 40, 1280, 2400], [128, 128, 256, 384]])
    assert out.dtype == np.float32


def test_greedy_nms_order_and_plus_one_areas():
    dets = np.array([
        [0, 0, 9, 9, 0.5],      # area 100 (+1 convention)
        [0, 0, 9, 9, 0.9],      # same box, higher score: kept first
        [5, 0, 14, 9, 0.8],     # overlap 50 / (100 + 100 - 50) = 1/3 with the top box
        [100, 100, 110, 110, 0.1],
    ], np.float32)
    assert letterbox.greedy_nms(dets, 0.3) == [1, 3]        # 1/3 > 0.3: suppressed
    assert letterbox.greedy_nms(dets, 1 / 3 + 1e-6) == [1, 2, 3]
    assert letterbox.greedy_nms(np.zeros((0, 5)), 0.3) == []
