"""Tests for metrics.flow.opencv_dis on a clip with a known translation."""

import cv2
import numpy as np
import pytest

from metrics.flow import opencv_dis

_HEIGHT, _WIDTH = 96, 128
_MARGIN = 16


def _texture(seed):
    """Smooth random BGR texture, larger than a frame by _MARGIN on each side."""
    rng = np.random.default_rng(seed)
    noise = rng.uniform(0, 255, (_HEIGHT + 2 * _MARGIN, _WIDTH + 2 * _MARGIN)).astype(np.float32)
    smooth = cv2.GaussianBlur(noise, (0, 0), sigmaX=3.0)
    smooth = (smooth - smooth.min()) / (smooth.max() - smooth.min()) * 255
    gray = smooth.round().astype(np.uint8)
    return np.stack([gray, np.flipud(gray), 255 - gray], axis=-1)


def _translated_pair(dx, dy, seed=0):
    """(a, b) with b(x, y) = a(x - dx, y - dy): pixel (x, y) of a moves to (x+dx, y+dy)."""
    texture = _texture(seed)
    a = texture[_MARGIN:_MARGIN + _HEIGHT, _MARGIN:_MARGIN + _WIDTH]
    b = texture[_MARGIN - dy:_MARGIN - dy + _HEIGHT, _MARGIN - dx:_MARGIN - dx + _WIDTH]
    return np.ascontiguousarray(a), np.ascontiguousarray(b)


@pytest.mark.parametrize("dx,dy", [(3, -2), (-1, 2)])
def test_median_interior_flow_is_the_shift(dx, dy):
    a, b = _translated_pair(dx, dy)
    flow = opencv_dis.dis_flow(a, b)
    assert flow.shape == (2, _HEIGHT, _WIDTH) and flow.dtype == np.float32
    interior = flow[:, 16:-16, 16:-16]
    assert abs(float(np.median(interior[0])) - dx) <= 0.25
    assert abs(float(np.median(interior[1])) - dy) <= 0.25


def test_reverse_pair_gives_the_opposite_shift():
    a, b = _translated_pair(3, -2)
    flow = opencv_dis.dis_flow(b, a)[:, 16:-16, 16:-16]
    assert abs(float(np.median(flow[0])) + 3) <= 0.25
    assert abs(float(np.median(flow[1])) - 2) <= 0.25


def test_identical_frames_have_zero_flow():
    a, _ = _translated_pair(0, 0)
    assert float(np.abs(opencv_dis.dis_flow(a, a)).max()) <= 1e-3


def test_dis_flow_callable_stacks_pairs():
    pairs = [_translated_pair(3, -2), _translated_pair(0, 0, seed=1)]
    backend = opencv_dis.DisFlow()
    flows = backend(pairs)
    assert flows.shape == (2, 2, _HEIGHT, _WIDTH)
    assert np.array_equal(flows[0], opencv_dis.dis_flow(*pairs[0]))
    assert backend.name == "opencv-dis" and backend.official is False


def test_bad_inputs():
    a, _ = _translated_pair(0, 0)
    with pytest.raises(ValueError, match="BGR uint8"):
        opencv_dis.dis_flow(a.astype(np.float32), a)
    with pytest.raises(ValueError, match="sizes differ"):
        opencv_dis.dis_flow(a, a[:-1])
    with pytest.raises(ValueError, match="at least one"):
        opencv_dis.DisFlow()([])


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
