"""SAM v1: metrics/segmentation/sam_v1 equals the VMBench-vendored segment_anything on the stored numbers."""

from tools.calibration import parity_check
from tools.calibration import sam_v1_parity


def test_sam_v1_matches_the_official_run_and_the_table():
    parity_check.assert_rows(sam_v1_parity.run())
