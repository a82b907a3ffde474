"""VBench's dynamic_degree (RAFT) and motion_smoothness (AMT-S) backends equal the official
VBench code on seeded random full-size weights (the stored run of
official_runs/vbench_motion_musiq.py)."""

import numpy as np

from tools.calibration import parity_check
from tools.calibration import vbench_motion_parity

# uint8 midpoints (amt_check): elements one level off under another CPU's float rounding;
# none on the CPU that made the record. A changed computation moves many, or by more.
MAX_LEVELS = 1
MAX_MOVED_FRACTION = 1e-3


def _report(rows):
    for row in rows:
        print(f"{row.backend} {row.check} {row.compared[:60]}: max abs {row.max_abs_diff:.3g}, "
              f"rel {row.max_rel_diff:.3g}, element ratio {row.element_ratio:.3g}")


def test_raft_matches_the_official_run_and_the_table():
    rows = vbench_motion_parity.run_raft()
    _report(rows)
    parity_check.assert_rows(rows)


def test_amt_matches_the_official_run_and_the_table():
    rows, levels = vbench_motion_parity.amt_check()
    _report(rows)
    moved = np.count_nonzero(levels) / levels.size
    print(f"midpoints: {np.count_nonzero(levels)} of {levels.size} elements moved, at most "
          f"{np.abs(levels).max()} level(s)")
    parity_check.assert_rows(rows)
    assert np.abs(levels).max() <= MAX_LEVELS and moved <= MAX_MOVED_FRACTION, (
        np.abs(levels).max(), moved)
