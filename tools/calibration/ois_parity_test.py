"""OIS parity (ois_parity.py): RTMDet-m and RTMPose-m against the official mmdet/mmpose
run's stored numbers, every check within tolerance and equal to the committed table."""

from tools.calibration import ois_parity
from tools.calibration import parity_check


def test_ois_parity_rows():
    rows = ois_parity.run()
    assert sorted({r.backend for r in rows}) == [ois_parity.DET, ois_parity.POSE]
    parity_check.assert_rows(rows)
