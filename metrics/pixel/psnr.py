"""Peak signal-to-noise ratio, as in the official reference_fidelity.py."""

import threading

import numpy as np

PSNR_CAP_DB = 99.0
_MSE_FLOOR = 1e-10
_scratch = threading.local()


def _diff_buffer(shape):
    """A float32 scratch array of `shape`, kept per thread and reused (no page faults)."""
    buf = getattr(_scratch, "diff", None)
    if buf is None or buf.shape != tuple(shape):
        buf = _scratch.diff = np.empty(shape, np.float32)
    return buf


def _check_bgr_pair(a, b):
    """Raises ValueError unless a and b are same-shape HxWx3 uint8 arrays."""
    for name, image in (("a", a), ("b", b)):
        if not isinstance(image, np.ndarray) or image.dtype != np.uint8:
            raise ValueError(f"{name} must be a uint8 numpy array")
        if image.ndim != 3 or image.shape[2] != 3 or image.size == 0:
            raise ValueError(
                f"{name} must have shape (H, W, 3), got {image.shape}"
            )
    if a.shape != b.shape:
        raise ValueError(f"shape mismatch: {a.shape} vs {b.shape}")


def peak_signal_noise_ratio(a, b):
    """PSNR in dB between two BGR uint8 images, capped at PSNR_CAP_DB.

    The mean squared error is computed in float32, exactly as the official
    code does; identical images (MSE < 1e-10) give PSNR_CAP_DB.

    Args:
        a: Image of shape (H, W, 3), dtype uint8.
        b: Image of the same shape and dtype.

    Returns:
        PSNR in dB as a Python float.

    Raises:
        ValueError: If the images are not same-shape (H, W, 3) uint8 arrays.
    """
    _check_bgr_pair(a, b)
    # (a.astype(float32) - b.astype(float32)) ** 2 without the two casts' copies:
    # the same float32 array (exact integers), so the same float32 mean.
    diff = _diff_buffer(a.shape)
    np.subtract(a, b, out=diff, dtype=np.float32)
    mse = float(np.mean(np.square(diff, out=diff)))
    if mse < _MSE_FLOOR:
        return PSNR_CAP_DB
    return float(10.0 * np.log10(255.0 ** 2 / mse))
