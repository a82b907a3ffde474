"""CLIP-IQA+: worldeval's metrics/clip clipiqa equals pyiqa's CLIPIQA on the stored numbers."""

from tools.calibration import clipiqa_parity
from tools.calibration import parity_check


def test_clipiqa_matches_the_official_run_and_the_table():
    parity_check.assert_rows(clipiqa_parity.run())
