"""metrics.frame_interpolation.amt_smoothness: the official AMT call reaches the model,
and the score equals smoothness.interpolation_smoothness around that call."""

import numpy as np
import pytest
import torch

from metrics.frame_interpolation import amt_smoothness
from metrics.frame_interpolation import smoothness


class _Averaging(torch.nn.Module):
    """AMT's call signature; the middle frame is (in_0 + in_1) / 2; records each call."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def forward(self, in_0, in_1, embt, scale_factor, eval):  # pylint: disable=redefined-builtin
        self.calls.append((tuple(embt.shape), float(embt.flatten()[0]), scale_factor, eval))
        return {"imgt_pred": (in_0 + in_1) / 2}


def test_score_is_the_smoothness_of_the_official_call():
    frames = np.random.default_rng(5).integers(0, 256, (5, 21, 30, 3), dtype=np.uint8)
    model = _Averaging()
    got = amt_smoothness.score(frames, model, 0.5, "cpu")
    assert model.calls == [((1, 1, 1, 1), 0.5, 0.5, True)] * 2
    want = smoothness.interpolation_smoothness(
        frames, lambda a, b, s: (a + b) / 2, 0.5, "cpu")
    assert got == pytest.approx(want, abs=1e-12)
    ramp = np.broadcast_to(np.linspace(0, 200, 5).astype(np.uint8)[:, None, None, None],
                           (5, 21, 30, 3)).copy()
    assert amt_smoothness.score(ramp, _Averaging(), 1.0) > got  # a fade is smoother than noise


def test_device_scale_is_one_on_the_cpu():
    assert amt_smoothness.device_scale(2160, 3840, "cpu") == 1.0
    assert amt_smoothness.device_scale(2160, 3840, torch.device("cpu")) == 1.0
