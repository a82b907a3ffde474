"""metrics.frame_interpolation.smoothness against numpy transcriptions of the spec."""

import numpy as np
import pytest

from metrics.frame_interpolation import smoothness

_MIB = 1024 ** 2


def _numpy_scale(h, w, vram_mib):
    scale = 1024 * 512 / (h * w) * np.sqrt((vram_mib - 2500) / 1500)
    scale = min(1.0, scale)
    return 1 / np.floor(16 / np.sqrt(scale)) * 16


@pytest.mark.parametrize("h, w, vram_mib", [(720, 1280, 81920), (2160, 3840, 24576),
                                            (1080, 1920, 8192), (1080, 1920, 4000)])
def test_memory_rule(h, w, vram_mib):
    got = smoothness.memory_scale(h, w, vram_mib * _MIB)
    assert got == pytest.approx(_numpy_scale(h, w, vram_mib))
    assert smoothness.memory_scale(h, w, None) == 1.0  # CPU
    # 4K on 24 GiB: 0.0632 * sqrt(22076 / 1500) = 0.2425; 1 / floor(32.49) * 16 = 0.5; pad 32.
    if (h, w, vram_mib) == (2160, 3840, 24576):
        assert got == 0.5 and smoothness.pad_divisor(got) == 32
    if (h, w, vram_mib) == (720, 1280, 81920):
        assert got == 1.0 and smoothness.pad_divisor(got) == 16  # a large GPU: no scaling
    with pytest.raises(ValueError, match="bias"):
        smoothness.memory_scale(h, w, 2000 * _MIB)


def _average(first, second, scale):
    return (first + second) / 2


def test_smoothness_of_a_linear_fade_with_the_averaging_interpolator():
    ramp = np.linspace(0, 200, 7).astype(np.uint8)  # 0, 33, 66, 100, 133, 166, 200
    frames = np.broadcast_to(ramp[:, None, None, None], (7, 21, 30, 3)).copy()
    middles = smoothness.interpolated_midpoints(frames, _average, 1.0)
    # Midpoints of (0, 66), (66, 133), (133, 200): float32 mean, *255 then truncated.
    want = [np.uint8(np.float32((np.float32(a / 255.0) + np.float32(b / 255.0)) / 2) * 255)
            for a, b in [(0, 66), (66, 133), (133, 200)]]
    assert [int(m[0, 0, 0]) for m in middles] == [int(v) for v in want]
    vfi = np.mean([abs(int(o) - int(m)) for o, m in zip([33, 100, 166], want)])
    assert smoothness.interpolation_smoothness(frames, _average, 1.0) == pytest.approx(
        (255 - vfi) / 255)


def test_padding_is_centred_to_int_16_over_scale_and_cropped_back():
    seen = []

    def record(first, second, scale):
        seen.append((tuple(first.shape), scale))
        return first

    frames = np.random.default_rng(0).integers(0, 256, (4, 21, 30, 3), dtype=np.uint8)
    middles = smoothness.interpolated_midpoints(frames, record, 0.5)  # multiple int(32) = 32
    assert seen == [((1, 3, 32, 32), 0.5)]
    np.testing.assert_array_equal(middles[0], frames[0])  # x / 255 * 255 truncates back


def test_needs_two_even_frames():
    with pytest.raises(ValueError, match="need 2"):
        smoothness.interpolation_smoothness(np.zeros((2, 8, 8, 3), np.uint8), _average, 1.0)
