"""SAM 2.1 B+ tracking for motion accuracy equals WorldScore's vos_inference on the stored
numbers."""

from tools.calibration import parity_check
from tools.calibration import sam2_motion_parity


def test_motion_tracking_matches_the_official_run_and_the_table():
    parity_check.assert_rows(sam2_motion_parity.run())
