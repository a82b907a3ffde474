"""Tests for benchmarks.memobench.step1.formulas: the phase choices and rounding of
run_eval.py around the generic metrics (numbers pinned as before the move)."""

import numpy as np
import pytest

from benchmarks.memobench.step1 import formulas
from metrics.flow import fake_flow

_PAIR_SCORE = fake_flow.RAMP_PAIR_SCORE


def test_temporal_score_of_identical_frames_is_one():
    frames = np.repeat(np.random.default_rng(4).integers(0, 256, (1, 16, 20, 3), np.uint8), 9,
                       axis=0)
    result = formulas.temporal_score(frames, 4, 4, 2, fake_flow.ZeroFlow())
    assert result.temporal_score == 1.0 and [p.name for p in result.phases] == ["V", "R"]


@pytest.mark.parametrize("h,r,want_phases,want_score", [
    # V samples [0, 4]: < 3 frames scores 0.0, and that 0.0 is still averaged in.
    (5, 10, {"V": 0.0, "R": _PAIR_SCORE}, (0.0 + _PAIR_SCORE) / 2),
    (1, 10, {"R": _PAIR_SCORE}, _PAIR_SCORE),  # h < 2: no V call.
    (2, 10, {"V": 0.0, "R": _PAIR_SCORE}, _PAIR_SCORE / 2),  # h == 2: V runs on [0].
    (8, 17, {"V": _PAIR_SCORE, "R": 0.0}, _PAIR_SCORE / 2),  # R = (17, 19) samples [17].
    (8, 18, {"V": _PAIR_SCORE}, _PAIR_SCORE),  # N-1-r < 2: no R call.
    (1, 18, {}, 0.0),  # No call ran.
])
def test_temporal_score_phases_and_quirks(h, r, want_phases, want_score):
    flow_fn = fake_flow.ZeroFlow()
    result = formulas.temporal_score(fake_flow.ramp_clip(20), h, r, 4, flow_fn)
    got = {p.name: p.score for p in result.phases}
    assert got.keys() == want_phases.keys()
    for name, score in want_phases.items():
        assert got[name] == pytest.approx(score, abs=1e-7)
    assert result.temporal_score == round(want_score, 4)
    assert len(flow_fn.calls) == sum(score > 0 for score in want_phases.values())


def test_temporal_score_is_rounded_to_4_dp():
    result = formulas.temporal_score(fake_flow.ramp_clip(20), 5, 10, 4, fake_flow.ZeroFlow())
    assert result.temporal_score == 0.1757  # round((0 + 0.351427...) / 2, 4)
    assert result.temporal_score != (0.0 + _PAIR_SCORE) / 2




def test_temporal_score_bad_inputs():
    frames = fake_flow.ramp_clip(9)
    with pytest.raises(ValueError, match="step must be positive"):
        formulas.temporal_score(frames, 1, 8, 0, fake_flow.ZeroFlow())
    with pytest.raises(ValueError, match="at least one frame"):
        formulas.temporal_score(frames[:0], 2, 4, 4, fake_flow.ZeroFlow())
