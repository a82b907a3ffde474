"""SAM 2.1: worldeval's predictors equal the vendored official sam2 on the stored numbers."""

from tools.calibration import parity_check
from tools.calibration import sam2_parity


def test_sam2_matches_the_official_run_and_the_table():
    parity_check.assert_rows(sam2_parity.run())
