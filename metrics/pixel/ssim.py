"""Single-scale SSIM, as in the official reference_fidelity.py.

Local statistics use an 11x11 Gaussian window (sigma 1.5) computed with
`cv2.GaussianBlur` in float32 and OpenCV's default (reflect-101) border.
"""

import threading

import cv2
import numpy as np

_C1 = (0.01 * 255) ** 2
_C2 = (0.03 * 255) ** 2
_WINDOW = (11, 11)
_SIGMA = 1.5
_EPS = 1e-8
_scratch = threading.local()


def _blur(x, out=None):
    """Gaussian-weighted local mean with the official window and border (into `out`)."""
    if out is None:
        return cv2.GaussianBlur(x, _WINDOW, _SIGMA)
    got = cv2.GaussianBlur(x, _WINDOW, _SIGMA, dst=out)
    if not np.shares_memory(got, out):  # OpenCV chose another buffer
        out[...] = got
    return out


def _buffers(shape, count):
    """`count` float32 scratch arrays of `shape`, kept per thread and reused.

    Reusing them spares each pair ~10 fresh frame-sized allocations (and their page
    faults); every caller overwrites a buffer before reading it.
    """
    key = (tuple(shape), count)
    cached = getattr(_scratch, "buffers", None)
    if cached is None or cached[0] != key:
        cached = (key, [np.empty(shape, np.float32) for _ in range(count)])
        _scratch.buffers = cached
    return cached[1]


def _check_pair(a, b, ndim):
    """Raises ValueError unless a and b are same-shape uint8 images."""
    for name, image in (("a", a), ("b", b)):
        if not isinstance(image, np.ndarray) or image.dtype != np.uint8:
            raise ValueError(f"{name} must be a uint8 numpy array")
        if image.ndim != ndim or image.size == 0:
            raise ValueError(f"{name} has unexpected shape {image.shape}")
        if ndim == 3 and image.shape[2] != 3:
            raise ValueError(f"{name} must have 3 channels: {image.shape}")
    if a.shape != b.shape:
        raise ValueError(f"shape mismatch: {a.shape} vs {b.shape}")


def structural_similarity_gray(a, b):
    """Mean SSIM between two single-channel uint8 images.

    Args:
        a: Grayscale image of shape (H, W), dtype uint8.
        b: Grayscale image of the same shape and dtype.

    Returns:
        Mean SSIM over all pixels as a Python float (1.0 for identical
        images, up to float32 rounding).

    Raises:
        ValueError: If the images are not same-shape (H, W) uint8 arrays.
    """
    _check_pair(a, b, ndim=2)
    return _ssim_float32(a, b)


def _ssim_float32(a, b):
    """The official SSIM map mean, operation for operation, in reused buffers.

    Each float32 operation and its order is the official code's
    ((2*mu_ab + C1) * (2*sig_ab + C2)) / ((mu_a2 + mu_b2 + C1) * (sig_a2 + sig_b2 + C2)
    + eps); working in place in per-thread buffers only saves allocations and page
    faults, so the result is bit-identical. `a` and `b` are uint8 or float32.
    """
    fa, fb, mu_a, mu_b, tmp, sig_a2, sig_b2, sig_ab, mu_a2, mu_b2 = _buffers(a.shape, 10)
    np.copyto(fa, a)                          # a.astype(np.float32)
    np.copyto(fb, b)
    _blur(fa, mu_a)
    _blur(fb, mu_b)
    _blur(np.multiply(fa, fa, out=tmp), sig_a2)   # blur(a**2); a**2 is a*a
    _blur(np.multiply(fb, fb, out=tmp), sig_b2)
    _blur(np.multiply(fa, fb, out=tmp), sig_ab)
    np.multiply(mu_a, mu_a, out=mu_a2)
    np.multiply(mu_b, mu_b, out=mu_b2)
    mu_ab = np.multiply(mu_a, mu_b, out=mu_a)   # mu_a is not needed after this
    sig_a2 -= mu_a2
    sig_b2 -= mu_b2
    sig_ab -= mu_ab
    num = np.multiply(mu_ab, 2, out=tmp)
    num += _C1
    sig_ab *= 2
    sig_ab += _C2
    num *= sig_ab
    den = mu_a2
    den += mu_b2
    den += _C1
    sig_a2 += sig_b2
    sig_a2 += _C2
    den *= sig_a2
    den += _EPS
    num /= den
    return float(np.mean(num))


def structural_similarity_bgr(a, b):
    """Mean SSIM between two BGR uint8 images, on their grayscale versions.

    Args:
        a: Image of shape (H, W, 3), dtype uint8, BGR.
        b: Image of the same shape and dtype.

    Returns:
        Mean SSIM of `cv2.cvtColor(x, cv2.COLOR_BGR2GRAY)` of both images.

    Raises:
        ValueError: If the images are not same-shape (H, W, 3) uint8 arrays.
    """
    _check_pair(a, b, ndim=3)
    gray_a = cv2.cvtColor(a, cv2.COLOR_BGR2GRAY)
    gray_b = cv2.cvtColor(b, cv2.COLOR_BGR2GRAY)
    return structural_similarity_gray(gray_a, gray_b)
