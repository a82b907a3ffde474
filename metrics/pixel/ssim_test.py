"""Tests for metrics.pixel.ssim against an independent numpy reference.

The reference below does not use OpenCV: it builds the 11-tap Gaussian
(sigma 1.5) itself, pads with reflect-101 (numpy's mode="reflect", which is
OpenCV's BORDER_DEFAULT) and convolves separably in float64.

Tolerances. The module, like the official code, works in float32, where
sigma^2 = blur(x^2) - mu^2 cancels catastrophically: blur(x^2) is up to
65025 and float32 keeps ~4e-3 absolute of it. On high-contrast images
(uniform random pixels, where local variances dwarf that error) the mean SSIM
agrees with the float64 reference to <= ~2e-7 (measured), so these are held
to 1e-6. On smooth low-variance images the float32 rounding leaks into the
result at ~1e-5 (measured up to 1.1e-5 for sizes >= 7x9) and depends on the
OpenCV code path: cv2 itself differs by ~5e-6 between
cv2.setUseOptimized(True) and (False). A float32 numpy reference does no
better (its summation order differs from OpenCV's SIMD/IPP kernels), so
those images are held to 1e-4, which still catches any formula change.
"""

import cv2
import numpy as np
import pytest

from metrics.pixel.ssim import (
    structural_similarity_bgr,
    structural_similarity_gray,
)

TIGHT = 1e-6
LOW_VARIANCE = 1e-4

SIZES = [(3, 4), (7, 9), (10, 10), (37, 53), (64, 80), (120, 160)]


def _gaussian_kernel():
    x = np.arange(11, dtype=np.float64)
    kernel = np.exp(-((x - 5) ** 2) / (2 * 1.5 ** 2))
    return kernel / kernel.sum()


def _reference_blur(image):
    """11x11 Gaussian blur, reflect-101 border, separable, float64."""
    kernel = _gaussian_kernel()
    h, w = image.shape
    padded = np.pad(image.astype(np.float64), 5, mode="reflect")
    rows = sum(kernel[i] * padded[:, i:i + w] for i in range(11))
    return sum(kernel[i] * rows[i:i + h, :] for i in range(11))


def _reference_ssim(a, b):
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    c1 = (0.01 * 255) ** 2
    c2 = (0.03 * 255) ** 2
    mu_a = _reference_blur(a)
    mu_b = _reference_blur(b)
    sig_a2 = _reference_blur(a * a) - mu_a * mu_a
    sig_b2 = _reference_blur(b * b) - mu_b * mu_b
    sig_ab = _reference_blur(a * b) - mu_a * mu_b
    num = (2 * mu_a * mu_b + c1) * (2 * sig_ab + c2)
    den = (mu_a * mu_a + mu_b * mu_b + c1) * (sig_a2 + sig_b2 + c2)
    return float(np.mean(num / (den + 1e-8)))


def _reference_gray(bgr):
    """BT.601 luma in OpenCV's 15-bit fixed point, rounded."""
    x = bgr.astype(np.int64)
    y = x[..., 0] * 3735 + x[..., 1] * 19235 + x[..., 2] * 9798
    return ((y + (1 << 14)) >> 15).astype(np.uint8)


def _random(shape, seed):
    return np.random.default_rng(seed).integers(0, 256, shape, np.uint8)


def _noisy(image, noise, seed):
    delta = np.random.default_rng(seed).integers(-noise, noise + 1, image.shape)
    return np.clip(image.astype(np.int64) + delta, 0, 255).astype(np.uint8)


def test_reference_kernel_and_border_match_opencv():
    kernel = _gaussian_kernel()
    np.testing.assert_allclose(
        kernel, cv2.getGaussianKernel(11, 1.5, cv2.CV_64F).ravel(), atol=1e-15
    )
    image = _random((37, 53), seed=5).astype(np.float32)
    blurred = cv2.GaussianBlur(image, (11, 11), 1.5)
    # float32 blur of values in [0, 255]: ~1e-7 relative.
    np.testing.assert_allclose(blurred, _reference_blur(image), atol=1e-4)
    wrong_border = cv2.GaussianBlur(
        image, (11, 11), 1.5, borderType=cv2.BORDER_REFLECT
    )
    assert np.abs(wrong_border - _reference_blur(image)).max() > 1e-2


@pytest.mark.parametrize("shape", SIZES)
def test_random_images_match_reference(shape):
    a = _random(shape, seed=shape[0])
    b = _random(shape, seed=shape[1] + 100)
    got = structural_similarity_gray(a, b)
    assert type(got) is float
    assert abs(got - _reference_ssim(a, b)) <= TIGHT


@pytest.mark.parametrize("shape", SIZES)
@pytest.mark.parametrize("noise", [5, 40])
def test_noisy_copies_match_reference(shape, noise):
    a = _random(shape, seed=7)
    b = _noisy(a, noise, seed=8)
    got = structural_similarity_gray(a, b)
    assert abs(got - _reference_ssim(a, b)) <= TIGHT
    assert abs(structural_similarity_gray(b, a) - got) <= TIGHT


@pytest.mark.parametrize("shape", [(7, 9), (37, 53), (120, 160)])
def test_smooth_low_variance_images_match_reference(shape):
    a = cv2.GaussianBlur(_random(shape, seed=9), (0, 0), 5)
    b = _noisy(a, 3, seed=10)
    got = structural_similarity_gray(a, b)
    want = _reference_ssim(a, b)
    assert 0.5 < want < 0.99
    assert abs(got - want) <= LOW_VARIANCE


@pytest.mark.parametrize("shape", SIZES)
def test_identical_images_give_one(shape):
    a = _random(shape, seed=11)
    assert abs(structural_similarity_gray(a, a.copy()) - 1.0) <= TIGHT
    for level in (0, 77, 255):
        flat = np.full(shape, level, np.uint8)
        assert abs(structural_similarity_gray(flat, flat) - 1.0) <= TIGHT


def test_reference_gray_is_bt601():
    bgr = _random((50, 60, 3), seed=12)
    weights = np.array([0.114, 0.587, 0.299])
    float_gray = np.round(bgr.astype(np.float64) @ weights)
    assert np.abs(_reference_gray(bgr) - float_gray).max() <= 1


@pytest.mark.parametrize("shape", [(7, 9), (37, 53), (64, 80)])
def test_bgr_uses_grayscale(shape):
    a = _random(shape + (3,), seed=13)
    b = _noisy(a, 20, seed=14)
    got = structural_similarity_bgr(a, b)
    want = _reference_ssim(_reference_gray(a), _reference_gray(b))
    assert abs(got - want) <= TIGHT
    assert abs(structural_similarity_bgr(a, a.copy()) - 1.0) <= TIGHT


@pytest.mark.parametrize(
    "func, a, b",
    [
        (structural_similarity_gray, np.zeros((5, 5), np.uint8),
         np.zeros((5, 6), np.uint8)),
        (structural_similarity_gray, np.zeros((5, 5), np.float32),
         np.zeros((5, 5), np.float32)),
        (structural_similarity_gray, np.zeros((5, 5, 3), np.uint8),
         np.zeros((5, 5, 3), np.uint8)),
        (structural_similarity_bgr, np.zeros((5, 5), np.uint8),
         np.zeros((5, 5), np.uint8)),
        (structural_similarity_bgr, np.zeros((5, 5, 4), np.uint8),
         np.zeros((5, 5, 4), np.uint8)),
        (structural_similarity_bgr, np.zeros((5, 5, 3), np.uint8),
         np.zeros((6, 5, 3), np.uint8)),
    ],
)
def test_bad_inputs(func, a, b):
    with pytest.raises(ValueError):
        func(a, b)


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))


def _official_float32_ssim(a, b):
    """MemoBench reference_fidelity._ssim_gray, transcribed (the numbers to keep)."""
    a = a.astype(np.float32)
    b = b.astype(np.float32)
    c1 = (0.01 * 255) ** 2
    c2 = (0.03 * 255) ** 2
    mu_a = cv2.GaussianBlur(a, (11, 11), 1.5)
    mu_b = cv2.GaussianBlur(b, (11, 11), 1.5)
    mu_a2, mu_b2, mu_ab = mu_a ** 2, mu_b ** 2, mu_a * mu_b
    sig_a2 = cv2.GaussianBlur(a ** 2, (11, 11), 1.5) - mu_a2
    sig_b2 = cv2.GaussianBlur(b ** 2, (11, 11), 1.5) - mu_b2
    sig_ab = cv2.GaussianBlur(a * b, (11, 11), 1.5) - mu_ab
    num = (2 * mu_ab + c1) * (2 * sig_ab + c2)
    den = (mu_a2 + mu_b2 + c1) * (sig_a2 + sig_b2 + c2)
    return float(np.mean(num / (den + 1e-8)))


@pytest.mark.parametrize("shape", [(7, 9), (64, 80), (369, 640)])
@pytest.mark.parametrize("noise", [0, 3, 40])
def test_bit_identical_to_official_float32_code(shape, noise):
    rng = np.random.default_rng(shape[0] + noise)
    h, w = shape
    base = np.add.outer(np.linspace(0, 200, h), np.linspace(0, 50, w))
    a = np.clip(base + rng.normal(0, 15, shape), 0, 255).astype(np.uint8)
    b = np.clip(a + rng.normal(0, noise + 1e-9, shape), 0, 255).astype(np.uint8)
    for x, y in ((a, b), (b, a), (a, a), (rng.integers(0, 256, shape, dtype=np.uint8), b)):
        assert structural_similarity_gray(x, y) == _official_float32_ssim(x, y)
