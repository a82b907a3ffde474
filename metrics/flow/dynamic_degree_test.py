"""metrics.flow.dynamic_degree with a stand-in RAFT whose flow is known: (10 * red, 0) of
the first padded, scaled image; the statistic is transcribed in numpy here."""

import numpy as np
import pytest

from metrics.flow import dynamic_degree
from metrics.flow import fake_flow


def _want(frame, fraction):
    red = np.pad(frame[:, :, 0].astype(np.float32), ((1, 2), (1, 2)), mode="edge")  # 37 -> 40
    speed = np.abs(10 * (2 * (red / np.float32(255.0)) - np.float32(1.0))).ravel()
    cut = int(speed.size * fraction)
    return float(np.mean(np.sort(speed)[::-1][:cut]))


@pytest.mark.parametrize("fraction", [0.05, 0.5])
def test_each_pair_is_the_top_fraction_mean_of_the_padded_flow(fraction):
    frames = list(np.random.default_rng(4).integers(0, 256, (3, 37, 45, 3), dtype=np.uint8))
    got = dynamic_degree.pair_top_speeds(frames, fake_flow.RedChannelRaft(), fraction)
    assert len(got) == 2
    for value, frame in zip(got, frames[:-1]):
        assert value == pytest.approx(_want(frame, fraction), rel=1e-5)
    assert got[0] != pytest.approx(got[1])


def test_a_bad_fraction_is_an_error():
    frames = list(np.zeros((2, 8, 8, 3), np.uint8))
    with pytest.raises(ValueError, match="fraction"):
        dynamic_degree.pair_top_speeds(frames, fake_flow.RedChannelRaft(), 0.0)
