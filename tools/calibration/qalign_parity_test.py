"""Q-Align one-align: worldeval's metrics/qalign and mss_rules equal the official
QAlignVideoScorer + motion_smoothness_score.py on the stored numbers."""

from tools.calibration import parity_check
from tools.calibration import qalign_parity


def test_qalign_matches_the_official_run_and_the_table():
    parity_check.assert_rows(qalign_parity.run())
