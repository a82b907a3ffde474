"""Depth Anything V2: worldeval's metrics/depth (transformers 5, PIL processor backend)
equals the official calls under transformers 4.57.1, on the stored official numbers."""

from tools.calibration import depth_anything_parity
from tools.calibration import parity_check


def test_depth_anything_matches_the_official_run_and_the_table():
    parity_check.assert_rows(depth_anything_parity.run())
