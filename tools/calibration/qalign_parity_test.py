"""Q-Align one-align: worldeval's metrics/qalign and mss_rules equal the official
QAlignVideoScorer + motion_smoothness_score.py on the stored numbers."""

import functools

from benchmarks.common import calibration
from tools.calibration import official_numbers
from tools.calibration import parity_check
from tools.calibration import qalign_parity

# 75 times the default tolerance relative to the logits (max |logit| 1.35), 1/40 of the
# float16 bound.
DRIFT = 1e-4


@functools.lru_cache(maxsize=None)
def _ours():
    return qalign_parity.ours()


def _official():
    return official_numbers.read(qalign_parity.OFFICIAL)


def _features(rows, dtype):
    (row,) = [r for r in rows if r.check == "features" and f"in {dtype}" in r.compared]
    return row


def test_qalign_matches_the_official_run_and_the_table():
    rows = qalign_parity.rows(_official(), *_ours())
    parity_check.assert_rows(rows)
    assert calibration.parity_from_rows(qalign_parity.BACKEND, rows).verified


def test_float32_logits_are_held_to_the_default_tolerance():
    rows = qalign_parity.rows(_official(), *_ours())
    assert _features(rows, "float32").tolerance == 1e-5
    assert _features(rows, "float16").tolerance == qalign_parity.FLOAT16_TOLERANCE


def test_a_drifted_float32_logit_fails_and_unverifies_the_backend():
    official = _official()
    shape, stat, value = official[(1, "logits")][7]
    assert stat.startswith("at:")
    official[(1, "logits")][7] = (shape, stat, value + DRIFT)
    rows = qalign_parity.rows(official, *_ours())
    drifted = _features(rows, "float32")
    assert not drifted.passed
    # Within the float16 bound the old pooled row held it to.
    assert drifted.max_rel_diff < qalign_parity.FLOAT16_TOLERANCE
    assert all(r.passed for r in rows if r is not drifted)
    parity = calibration.parity_from_rows(qalign_parity.BACKEND, rows)
    assert not parity.verified and "features" in parity.scope, parity.scope
