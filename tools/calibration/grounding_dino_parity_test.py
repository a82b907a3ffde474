"""GroundingDINO: metrics/detection equals the VMBench-vendored official code on the stored numbers."""

from tools.calibration import grounding_dino_parity
from tools.calibration import parity_check


def test_grounding_dino_matches_the_official_run_and_the_table():
    parity_check.assert_rows(grounding_dino_parity.run())
