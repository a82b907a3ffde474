"""Tests for metrics.pixel.psnr against an independent float64 reference."""

import math

import numpy as np
import pytest

from metrics.pixel.psnr import PSNR_CAP_DB, peak_signal_noise_ratio

# The module follows the official code and averages squared errors in
# float32; this reference uses float64. Squared differences of uint8 values
# are exact in float32, so only the float32 summation and the float32 mean
# differ, which is ~1e-7 relative on the MSE, i.e. <= ~5e-7 dB (measured
# <= 4e-7 up to 2160x3840). So 1e-6 dB holds and still catches any formula
# change.
TOLERANCE_DB = 1e-6

SIZES = [(7, 9), (37, 53), (64, 64), (120, 160), (480, 640)]


def _reference_psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    if mse < 1e-10:
        return 99.0
    return 10.0 * math.log10(255.0 ** 2 / mse)


def _pair(shape, seed, noise=None):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 256, shape + (3,), dtype=np.uint8)
    if noise is None:
        b = rng.integers(0, 256, shape + (3,), dtype=np.uint8)
    else:
        delta = rng.integers(-noise, noise + 1, a.shape)
        b = np.clip(a.astype(np.int64) + delta, 0, 255).astype(np.uint8)
    return a, b


@pytest.mark.parametrize("shape", SIZES)
@pytest.mark.parametrize("noise", [None, 3, 30])
def test_matches_reference(shape, noise):
    a, b = _pair(shape, seed=shape[0] * 1000 + shape[1], noise=noise)
    got = peak_signal_noise_ratio(a, b)
    assert type(got) is float
    assert abs(got - _reference_psnr(a, b)) <= TOLERANCE_DB
    assert peak_signal_noise_ratio(b, a) == got


@pytest.mark.parametrize("shape", SIZES)
def test_identical_images_hit_cap(shape):
    a, _ = _pair(shape, seed=1)
    assert peak_signal_noise_ratio(a, a.copy()) == PSNR_CAP_DB == 99.0


@pytest.mark.parametrize("d", [1, 5, 17, 100])
@pytest.mark.parametrize("shape", [(7, 9), (37, 53), (64, 64)])
def test_constant_offset_is_exact(shape, d):
    rng = np.random.default_rng(d)
    a = rng.integers(0, 256 - d, shape + (3,), dtype=np.uint8)
    b = a + np.uint8(d)
    want = 10 * np.log10(255.0 ** 2 / d ** 2)
    assert peak_signal_noise_ratio(a, b) == float(want)
    assert abs(want - 20 * math.log10(255 / d)) < 1e-12


def test_single_pixel_difference():
    a = np.zeros((10, 10, 3), np.uint8)
    b = a.copy()
    b[3, 4, 1] = 255
    # MSE = 255^2 / 300 -> PSNR = 10 * log10(300).
    assert abs(peak_signal_noise_ratio(a, b) - 10 * math.log10(300)) < 1e-6


@pytest.mark.parametrize(
    "a, b",
    [
        (np.zeros((4, 4, 3), np.uint8), np.zeros((4, 5, 3), np.uint8)),
        (np.zeros((4, 4, 3), np.float32), np.zeros((4, 4, 3), np.float32)),
        (np.zeros((4, 4), np.uint8), np.zeros((4, 4), np.uint8)),
        (np.zeros((4, 4, 4), np.uint8), np.zeros((4, 4, 4), np.uint8)),
        (np.zeros((0, 4, 3), np.uint8), np.zeros((0, 4, 3), np.uint8)),
        ([[0]], [[0]]),
    ],
)
def test_bad_inputs(a, b):
    with pytest.raises(ValueError):
        peak_signal_noise_ratio(a, b)


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))


@pytest.mark.parametrize("shape", [(1, 1, 3), (37, 53, 3), (369, 640, 3)])
def test_bit_identical_to_official_float32_code(shape):
    rng = np.random.default_rng(shape[0])
    a = rng.integers(0, 256, shape, dtype=np.uint8)
    for sigma in (1, 10, 80):
        b = np.clip(a + rng.normal(0, sigma, shape), 0, 255).astype(np.uint8)
        mse = float(np.mean((a.astype(np.float32) - b.astype(np.float32)) ** 2))
        want = 99.0 if mse < 1e-10 else float(10.0 * np.log10(255.0 ** 2 / mse))
        assert peak_signal_noise_ratio(a, b) == want
