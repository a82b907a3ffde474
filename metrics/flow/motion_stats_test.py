"""Motion magnitude and object-vs-background motion: known answers and numpy
transcriptions of the spec (torch's lower median, the 21x21 dilation)."""

import numpy as np
import pytest
import torch

from metrics.flow import motion_stats


def _flow_of_speeds(speeds):
    """A flow whose per-pixel length is `speeds` (3-4-5 triangles)."""
    speeds = np.asarray(speeds, np.float32)
    return np.stack([0.6 * speeds, 0.8 * speeds], axis=-1)


def test_median_is_torchs_lower_median():
    flow = _flow_of_speeds([[1.0, 2.0], [3.0, 10.0]])
    assert motion_stats.median_magnitude(flow) == pytest.approx(2.0, rel=1e-6)  # not 2.5
    rng = np.random.default_rng(0)
    for shape in ((7, 9), (6, 8)):
        flow = rng.normal(size=shape + (2,)).astype(np.float32)
        speed = np.sqrt(flow[..., 0] ** 2 + flow[..., 1] ** 2)
        assert motion_stats.median_magnitude(flow) == torch.from_numpy(speed).median().item()


def test_dilation_is_a_21_square_clipped_at_the_border():
    mask = np.zeros((40, 50), bool)
    mask[20, 25] = mask[2, 3] = True
    grown = motion_stats.dilate_mask(mask)
    expected = np.zeros_like(mask)
    expected[10:31, 15:36] = True
    expected[0:13, 0:14] = True
    np.testing.assert_array_equal(grown, expected)


def _numpy_dilate(mask, pixels):
    padded = np.pad(mask, pixels)
    out = np.zeros_like(mask)
    for dy in range(2 * pixels + 1):
        for dx in range(2 * pixels + 1):
            out |= padded[dy:dy + mask.shape[0], dx:dx + mask.shape[1]]
    return out


def test_object_mask_is_the_dilated_union():
    rng = np.random.default_rng(1)
    objects = [rng.random((45, 52)) > 0.995 for _ in range(3)]
    union = objects[0] | objects[1] | objects[2]
    np.testing.assert_array_equal(motion_stats.object_mask(objects), _numpy_dilate(union, 10))


def test_object_minus_background_maximum():
    speeds = np.ones((30, 40), np.float32)
    speeds[5, 5] = 9.0       # inside the object
    speeds[25, 35] = 4.0     # the background's fastest pixel
    mask = np.zeros((30, 40), bool)
    mask[0:10, 0:10] = True
    value = motion_stats.object_background_motion(_flow_of_speeds(speeds), mask)
    assert value == pytest.approx(5.0, rel=1e-6)
    rng = np.random.default_rng(2)
    flow = rng.normal(size=(30, 40, 2)).astype(np.float32)
    speed = torch.from_numpy(np.sqrt(flow[..., 0] ** 2 + flow[..., 1] ** 2))
    official = float((speed[torch.from_numpy(mask)].max() - speed[~torch.from_numpy(mask)].max()))
    assert motion_stats.object_background_motion(flow, mask) == official


def test_mask_errors():
    flow = np.zeros((30, 40, 2), np.float32)
    with pytest.raises(ValueError, match="covers none"):
        motion_stats.object_background_motion(flow, np.zeros((30, 40), bool))
    with pytest.raises(ValueError, match="covers all"):
        motion_stats.object_background_motion(flow, np.ones((30, 40), bool))
    with pytest.raises(ValueError, match="one row/column short"):
        motion_stats.object_background_motion(flow, np.zeros((31, 41), bool))
    with pytest.raises(ValueError, match="bool mask"):
        motion_stats.object_background_motion(flow, np.zeros((30, 40), np.uint8))
    with pytest.raises(ValueError, match="no object masks"):
        motion_stats.object_mask([])


def test_clip_statistics_average_over_pairs():
    def flow(a, b):
        return _flow_of_speeds(np.full((20, 20), float(b - a)))

    assert motion_stats.clip_motion_magnitude([0, 1, 4], flow) == pytest.approx(2.0, rel=1e-6)
    masks = [np.zeros((20, 20), bool) for _ in range(3)]
    masks[0][:5] = True
    masks[1][:, :5] = True

    def moving(a, b):
        speeds = np.zeros((20, 20), np.float32)
        speeds[:5] = 3.0 * b  # the object (top rows in frame 0) moves
        return _flow_of_speeds(speeds)

    # pair (0, 1) mask 0: 3 - 0; pair (1, 2) mask 1 (left columns): 6 - 6 = 0.
    assert motion_stats.clip_motion_accuracy([0, 1, 2], masks, moving) == pytest.approx(1.5)
    with pytest.raises(ValueError, match="1 masks for 2 frame pairs"):
        motion_stats.clip_motion_accuracy([0, 1, 2], masks[:1], moving)
    with pytest.raises(ValueError, match="at least 2 frames"):
        motion_stats.clip_motion_magnitude([0], flow)


def test_top_fraction_mean_is_the_mean_of_the_largest_five_percent():
    values = np.arange(1, 101, dtype=np.float32).reshape(10, 10)  # int(100 * 0.05) = 5
    assert motion_stats.top_fraction_mean(values, 0.05) == pytest.approx(98.0)
    rng = np.random.default_rng(4)
    speed = rng.random((37, 53)).astype(np.float32)
    cut = int(37 * 53 * 0.05)  # 98: truncated, not rounded
    want = np.sort(speed.ravel())[::-1][:cut].astype(np.float64).mean()
    assert motion_stats.top_fraction_mean(speed, 0.05) == pytest.approx(want, rel=1e-6)
    with pytest.raises(ValueError, match="= 0 of them"):
        motion_stats.top_fraction_mean(np.ones((3, 3)), 0.05)
    with pytest.raises(ValueError, match="fraction"):
        motion_stats.top_fraction_mean(speed, 0.0)
