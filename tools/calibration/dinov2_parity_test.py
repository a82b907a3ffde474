"""DINOv2: worldeval's metrics/dinov2 equals the torch.hub DINOv2 code on the stored numbers."""

from tools.calibration import dinov2_parity
from tools.calibration import parity_check


def test_dinov2_matches_the_official_run_and_the_table():
    parity_check.assert_rows(dinov2_parity.run())
