"""OIS parity (ois_parity.py): RTMDet-m and RTMPose-m against the official mmdet/mmpose
run's stored numbers, every check within tolerance and equal to the committed table."""

import numpy as np

from tools.calibration import ois_parity
from tools.calibration import parity_check


def test_ois_parity_rows():
    recorded = ois_parity.ours()
    rows = ois_parity.run(recorded)
    assert sorted({r.backend for r in rows}) == [ois_parity.DET, ois_parity.POSE]
    parity_check.assert_rows(rows)
    # The score row still compares most keypoints: near-ties are the exception.
    frames = sum(len(rec["decisive"]) for rec in recorded.values())
    assert frames == 2 * ois_parity.FRAMES
    print("near-ties left out:", ois_parity.near_ties(recorded), "of", frames * 17)
    assert ois_parity.near_ties(recorded) <= frames * 17 // 4


def test_a_near_tie_is_not_decisive_and_a_clear_maximum_is():
    x = np.array([[0.0, 1.0, 0.2], [0.5, 0.5 + 1e-7, 0.1]])
    y = np.array([[0.3, 0.0, 0.9], [0.9, 0.0, 0.1]])
    assert ois_parity.decisive(x, y).tolist() == [[True, True], [False, False]]
    assert not ois_parity.decisive(x, -np.abs(y) + 1e-7)[:, 0].any()  # score ~ 0
