"""SAM 2.1 B+ tracking for motion accuracy equals WorldScore's vos_inference on the stored
numbers."""

import functools

from benchmarks.common import calibration
from metrics.flow import motion_stats
from tools.calibration import parity_check
from tools.calibration import sam2_motion_parity


@functools.lru_cache(maxsize=None)
def _ours():
    return sam2_motion_parity.ours()


def _rows(dilate):
    pixels, unions = _ours()
    return sam2_motion_parity.rows(sam2_motion_parity.official(), pixels, unions,
                                   [dilate(u) for u in unions])


def _failing(rows):
    return sorted(r.check for r in rows if not r.passed)


def test_motion_tracking_matches_the_official_run_and_the_table():
    rows = _rows(motion_stats.dilate_mask)
    parity_check.assert_rows(rows)
    assert calibration.parity_from_rows(sam2_motion_parity.BACKEND, rows).verified


def test_no_official_mask_is_empty_or_full():
    official = sam2_motion_parity.official()
    for name in ("unions", "dilated"):
        low, high = sam2_motion_parity.coverage(official[name])
        assert 0.05 < low and high < 0.95, (name, low, high)


def test_a_wrong_dilation_fails_the_score_row():
    for dilate in (lambda u: motion_stats.dilate_mask(u, pixels=9),
                   lambda u: motion_stats.dilate_mask(u, pixels=11),
                   lambda u: u):
        rows = _rows(dilate)
        assert _failing(rows) == ["score"], [(r.check, r.max_rel_diff) for r in rows]
        assert not calibration.parity_from_rows(sam2_motion_parity.BACKEND, rows).verified


def test_a_lost_object_fails_the_features_row():
    pixels, unions = _ours()
    lost = [unions[0]] + [u & ~u for u in unions[1:]]
    rows = sam2_motion_parity.rows(sam2_motion_parity.official(), pixels, lost,
                                   [motion_stats.dilate_mask(u) for u in lost])
    assert _failing(rows) == ["features", "score"]
