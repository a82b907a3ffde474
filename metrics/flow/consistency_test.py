"""forward_backward_epe: known answers and a per-pixel loop transcription of the spec."""

import math

import numpy as np
import pytest

from metrics.flow import consistency


def _loop_epe(f12, f21, crop=30):
    """Spec §4.5, one pixel at a time (Python's round() also rounds half to even)."""
    height, width, _ = f12.shape
    ch, cw = height - crop, width - crop
    top, left = crop // 2, crop // 2
    total = 0.0
    for y in range(ch):
        for x in range(cw):
            u, v = (float(t) for t in f12[top + y, left + x])
            qx, qy = x + u, y + v
            rx = min(max(round(qx), 0), cw - 1)
            ry = min(max(round(qy), 0), ch - 1)
            bu, bv = (float(t) for t in f21[top + ry, left + rx])
            total += math.hypot(qx + bu - x, qy + bv - y)
    return total / (ch * cw)


def _constant(shape, u, v):
    flow = np.zeros(shape + (2,), np.float32)
    flow[..., 0], flow[..., 1] = u, v
    return flow


def test_a_consistent_translation_has_zero_error():
    assert consistency.forward_backward_epe(_constant((50, 60), 2.0, -3.0),
                                            _constant((50, 60), -2.0, 3.0)) == 0.0


def test_a_missing_backward_flow_costs_the_forward_length():
    epe = consistency.forward_backward_epe(_constant((50, 60), 3.0, 4.0), _constant((50, 60), 0, 0))
    assert epe == pytest.approx(5.0, abs=1e-12)


def test_the_crop_is_fifteen_pixels_per_side():
    f12 = _constant((50, 60), 0.0, 0.0)
    f21 = _constant((50, 60), 0.0, 0.0)
    f21[:15] = f21[-15:] = 100.0  # outside the crop: never looked up
    f21[:, :15] = f21[:, -15:] = 100.0
    assert consistency.forward_backward_epe(f12, f21) == 0.0
    f21[15, 15] = 1.0  # the crop's first pixel
    assert consistency.forward_backward_epe(f12, f21) == pytest.approx(math.sqrt(2) / (20 * 30))


def test_rounding_is_half_to_even_and_lookups_clip_to_the_crop():
    # Crop 2 -> a 4 x 4 window of a 6 x 6 flow. Forward x-flow 0.5 everywhere: q = x + 0.5
    # rounds to x for even x and to x + 1 for odd x (then clipped to 3).
    f12 = _constant((6, 6), 0.5, 0.0)
    f21 = np.zeros((6, 6, 2), np.float32)
    f21[1:5, 1:5, 0] = np.array([0.0, -1.0, -2.0, -3.0])  # backward x-flow by crop column
    # x=0 -> r=0: |0.5 + 0| ; x=1 -> r=2: |0.5 - 2| ; x=2 -> r=2: |0.5 - 2| ; x=3 -> r=3 (4 clipped)
    expected = (0.5 + 1.5 + 1.5 + 2.5) / 4
    assert consistency.forward_backward_epe(f12, f21, crop=2) == pytest.approx(expected)
    assert _loop_epe(f12, f21, crop=2) == pytest.approx(expected)


def test_random_flows_equal_the_loop_transcription():
    rng = np.random.default_rng(0)
    f12 = rng.normal(scale=6.0, size=(41, 47, 2)).astype(np.float32)
    f21 = rng.normal(scale=6.0, size=(41, 47, 2)).astype(np.float32)
    ours = consistency.forward_backward_epe(f12, f21)
    assert ours == pytest.approx(_loop_epe(f12, f21), rel=1e-12)
    assert isinstance(ours, float)


def test_clip_mean_is_over_pairs_with_both_directions():
    calls = []

    def flow(a, b):
        calls.append((a, b))
        return _constant((40, 40), float(b - a), 0.0) if a < b else _constant((40, 40), 0, 0)

    # Pairs (0, 1) and (1, 3): forward 1 and 2 px, the backward flows are zero.
    assert consistency.clip_forward_backward_epe([0, 1, 3], flow) == pytest.approx(1.5)
    assert calls == [(0, 1), (1, 0), (1, 3), (3, 1)]


def test_bad_input():
    with pytest.raises(ValueError, match="at least 2 frames"):
        consistency.clip_forward_backward_epe([0], lambda a, b: None)
    with pytest.raises(ValueError, match="differ in shape"):
        consistency.forward_backward_epe(np.zeros((40, 40, 2)), np.zeros((40, 41, 2)))
    with pytest.raises(ValueError, match=r"\(H, W, 2\)"):
        consistency.forward_backward_epe(np.zeros((40, 40)), np.zeros((40, 40)))
    with pytest.raises(ValueError, match="no pixel left"):
        consistency.forward_backward_epe(np.zeros((30, 40, 2)), np.zeros((30, 40, 2)))
