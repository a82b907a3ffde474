"""VFIMamba motion smoothness: worldeval's selective scan, model, loader, padding, TTA and
per-pair scores equal the official VFIMamba + WorldScore + torchmetrics code on the stored
numbers, and the rows equal the committed table."""

from tools.calibration import parity_check
from tools.calibration import vfimamba_parity


def test_vfimamba_matches_the_official_run_and_the_table():
    parity_check.assert_rows(vfimamba_parity.run())
