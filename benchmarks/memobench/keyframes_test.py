"""Tests for benchmarks.memobench.keyframes (moved from metrics.video.sampling, values unchanged)."""

import pytest

from benchmarks.memobench import keyframes


@pytest.mark.parametrize(
    "args, expected",
    [
        ((100, 200, 300, 81), (27, 54)),
        ((5, 290, 300, 81), (2, 78)),
        ((100, 101, 300, 81), (27, 29)),
    ],
)
def test_map_keyframes_known_answers(args, expected):
    got = keyframes.map_keyframes(*args)
    assert got == expected
    assert all(type(v) is int for v in got)


def test_map_keyframes_bankers_rounding():
    # 5 / 10 * 9 == 4.5 exactly -> 4 (even); 7 / 10 * 9 == 6.3 -> 6.
    assert keyframes.map_keyframes(5, 7, 10, 9) == (4, 6)
    # 15 / 20 * 30 == 22.5 -> 22; 17 / 20 * 30 == 25.5 -> 26.
    assert keyframes.map_keyframes(15, 17, 20, 30) == (22, 26)


def test_map_keyframes_clamps():
    assert keyframes.map_keyframes(299, 299, 300, 81) == (77, 80)
    assert keyframes.map_keyframes(0, 0, 300, 6) == (2, 4)
    assert keyframes.map_keyframes(300, 300, 300, 6) == (2, 5)


def test_map_keyframes_errors():
    with pytest.raises(ValueError, match="gt_total"):
        keyframes.map_keyframes(1, 2, 0, 81)
    with pytest.raises(ValueError, match="fewer than"):
        keyframes.map_keyframes(1, 2, 300, 5)


def test_phase_ranges_share_boundaries():
    ranges = keyframes.phase_ranges(27, 54, 81)
    assert ranges == {
        "O": (0, 27), "H": (27, 54), "R": (54, 80), "ALL": (0, 80)
    }
    assert ranges["O"][1] == ranges["H"][0]
    assert ranges["H"][1] == ranges["R"][0]
    with pytest.raises(ValueError):
        keyframes.phase_ranges(30, 20, 81)
    with pytest.raises(ValueError):
        keyframes.phase_ranges(2, 81, 81)

