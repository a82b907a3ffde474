"""Tests for metrics.motion_masks.background against a numpy transcription.

The reference below re-derives every step in plain numpy (no cv2 call):
grey with OpenCV's 15-bit fixed-point weights (3735, 19235, 9798 for B, G, R,
+2^14 then >> 15), the 5-tap binomial blur [1 4 6 4 1] applied
separably with reflect-101 borders and one final (+128) >> 8, the float64
running average, round-half-even saturation, and erosion / dilation with
borders that never win. Every comparison is exact (==): the whole chain is
integer or correctly rounded float64, so there is nothing to tolerate.
"""

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

from metrics.motion_masks.background import iter_motion_masks, motion_masks

PARAMS = dict(alpha=0.3, threshold=10, blur_size=5, morph_size=5)


def _grey(frame):
    b, g, r = (frame[..., i].astype(np.int64) for i in range(3))
    return ((b * 3735 + g * 19235 + r * 9798 + (1 << 14)) >> 15).astype(np.uint8)


def _blur5(image):
    taps = np.array([1, 4, 6, 4, 1], np.int64)
    padded = np.pad(image.astype(np.int64), 2, mode="reflect")
    rows = (sliding_window_view(padded, 5, axis=1) * taps).sum(-1)
    both = (sliding_window_view(rows, 5, axis=0) * taps).sum(-1)
    return ((both + 128) >> 8).astype(np.uint8)


def _morph(image, size, op):
    """Erosion (min) or dilation (max) with a size x size box; borders never win."""
    half = size // 2
    fill = 255 if op is np.min else 0
    padded = np.pad(image, half, mode="constant", constant_values=fill)
    return op(sliding_window_view(padded, (size, size)), axis=(-2, -1)).astype(np.uint8)


def _reference_masks(frames, alpha, threshold, size):
    masks = []
    average = None
    for frame in frames:
        grey = _blur5(_grey(frame))
        if average is None:
            average = grey.astype(np.float64)
            masks.append(np.zeros_like(grey))
            continue
        average = average * (1.0 - alpha) + grey * alpha  # update first
        background = np.clip(np.rint(np.abs(average)), 0, 255).astype(np.int64)
        diff = np.abs(grey.astype(np.int64) - background)
        mask = np.where(diff > threshold, 255, 0).astype(np.uint8)
        mask = _morph(_morph(mask, size, np.min), size, np.max)  # open
        mask = _morph(_morph(mask, size, np.max), size, np.min)  # close
        masks.append(mask)
    return np.stack(masks)


def _moving_scene(seed, shape=(48, 64), count=12, noise=6):
    """A textured background, a bright square moving right, mild sensor noise."""
    rng = np.random.default_rng(seed)
    height, width = shape
    base = rng.integers(40, 200, (height, width, 3)).astype(np.int64)
    frames = []
    for t in range(count):
        frame = base + rng.integers(-noise, noise + 1, base.shape)
        x = 4 + 3 * t
        frame[14:30, x:x + 12] = (230, 240, 250)
        frames.append(np.clip(frame, 0, 255).astype(np.uint8))
    return frames


@pytest.mark.parametrize("seed", range(4))
def test_matches_reference_on_moving_scene(seed):
    frames = _moving_scene(seed)
    ours = motion_masks(frames, **PARAMS)
    expected = _reference_masks(frames, 0.3, 10, 5)
    assert ours.dtype == np.uint8 and ours.shape == (12, 48, 64)
    assert np.array_equal(ours, expected)
    assert ours[1:].any(), "the scene must produce motion"


@pytest.mark.parametrize("seed", range(3))
def test_matches_reference_on_random_frames_odd_size(seed):
    rng = np.random.default_rng(100 + seed)
    frames = [rng.integers(0, 256, (37, 53, 3), dtype=np.uint8) for _ in range(6)]
    for alpha, threshold, size in ((0.3, 10, 5), (0.5, 40, 3)):
        ours = motion_masks(frames, alpha=alpha, threshold=threshold, blur_size=5, morph_size=size)
        assert np.array_equal(ours, _reference_masks(frames, alpha, threshold, size))


def test_grey_reference_is_opencv_fixed_point():
    # Guards the reference itself: if the grey weights were off, the
    # comparisons above could pass or fail for the wrong reason.
    import cv2

    rng = np.random.default_rng(7)
    frame = rng.integers(0, 256, (120, 160, 3), dtype=np.uint8)
    assert np.array_equal(_grey(frame), cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    grey = _grey(frame)
    assert np.array_equal(_blur5(grey), cv2.GaussianBlur(grey, (5, 5), 0))


def test_first_mask_is_all_zeros_even_for_a_busy_frame():
    frames = [np.full((16, 16, 3), 255, np.uint8), np.zeros((16, 16, 3), np.uint8)]
    masks = motion_masks(frames, **PARAMS)
    assert not masks[0].any()
    assert masks[1].all()  # the second frame differs everywhere


def test_average_is_updated_before_the_difference():
    # Background 100, then a frame of 114: updated first, the background is
    # 0.7 * 100 + 0.3 * 114 = 104.2 -> 104 and the difference 10 is NOT > 10.
    # Differencing against the old average (100) would give 14 > 10.
    frames = [np.full((12, 12, 3), 100, np.uint8), np.full((12, 12, 3), 114, np.uint8)]
    masks = motion_masks(frames, **PARAMS)
    assert not masks[1].any()
    frames[1][:] = 115  # 104.5 -> 104 (half to even), difference 11 > 10
    assert motion_masks(frames, **PARAMS)[1].all()


def test_generator_is_lazy_and_matches_array():
    frames = _moving_scene(9, count=5)
    consumed = []

    def source():
        for frame in frames:
            consumed.append(1)
            yield frame

    iterator = iter_motion_masks(source(), **PARAMS)
    first = next(iterator)
    assert len(consumed) == 1 and not first.any()
    rest = list(iterator)
    assert np.array_equal(np.stack([first] + rest), motion_masks(frames, **PARAMS))


def test_rejects_bad_frames():
    with pytest.raises(ValueError, match="no frames"):
        motion_masks([], **PARAMS)
    with pytest.raises(ValueError, match="uint8"):
        motion_masks([np.zeros((8, 8, 3), np.float32)], **PARAMS)
    with pytest.raises(ValueError, match="BGR"):
        motion_masks([np.zeros((8, 8), np.uint8)], **PARAMS)
