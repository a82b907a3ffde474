"""MSS's windows, PAS-dependent threshold and artifact rule (spec §4.5), quirks pinned."""

import math

import pytest

from benchmarks.vmbench import mss_rules as mss


def test_windows():
    assert mss.windows(5) == [[0, 0, 0], [0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 3, 4]]
    assert mss.windows(1) == [[0, 0, 0]]
    assert mss.windows(2) == [[0, 0, 0], [0, 1, 1]]  # padded at the end: starts at 0
    assert mss.windows(4, size=5) == [[0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 1, 2, 3, 3],
                                      [1, 1, 1, 2, 3]]
    with pytest.raises(ValueError):
        mss.windows(0)


def test_threshold_table_and_its_edges():
    assert [mss.threshold(p) for p in (None, 0.0, 0.0999, 0.1, 0.2999, 0.3, 0.4999, 0.5,
                                       7.0)] == [0.01, 0.01, 0.01, 0.015, 0.015, 0.025,
                                                 0.025, 0.03, 0.03]
    assert mss.threshold(math.nan) == 0.03  # NaN fails every comparison upstream too


def test_artifacts_and_score():
    scores = [0.5, 0.5, 0.52, 0.52, 0.52, 0.505, 0.5]
    assert list(mss.artifact_frames(scores, 0.01)) == [1, 2, 4, 5]
    assert mss.score(scores, 0.05) == pytest.approx(1 - 4 / 7)
    assert mss.score(scores, 0.6) == 1 - 0 / 7  # 0.03: no jump is larger
    assert mss.score([0.7], None) == 1.0
    with pytest.raises(ValueError):
        mss.score([], None)
