"""droid_fill.py: bracketing keyframes, the 1e-3 in dt and the past-the-end quirk."""

import numpy as np
import pytest

from metrics.slam import droid_fill


def test_frames_between_keyframes_and_past_the_last():
    k0, k1, dt, elapsed = droid_fill.interpolation_plan([0, 3, 7], [0, 1, 3, 5, 7, 9])
    assert k0.tolist() == [0, 0, 1, 1, 2, 2]
    assert k1.tolist() == [1, 1, 2, 2, 2, 2]   # past the last keyframe: k1 = k0
    np.testing.assert_array_equal(dt, np.float32([3, 3, 4, 4, 0, 0]) + np.float32(1e-3))
    assert elapsed.tolist() == [0, 1, 0, 2, 0, 2]
    # the interpolation fraction elapsed / dt is just under 1/3 for frame 1, and 2000 past the end
    assert (elapsed / dt)[1] == pytest.approx(1 / 3.001) and (elapsed / dt)[5] > 1000


def test_batches_of_16():
    assert [len(b) for b in droid_fill.batches(range(40))] == [16, 16, 8]


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="increasing"):
        droid_fill.interpolation_plan([0, 0], [0])
    with pytest.raises(ValueError, match="precede the first keyframe"):
        droid_fill.interpolation_plan([2, 4], [1])
