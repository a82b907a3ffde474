"""VBench imaging_quality's MUSIQ backend equals the official VBench code with pyiqa
0.1.16's MUSIQ on seeded random full-size weights (the stored run of
official_runs/vbench_motion_musiq.py)."""

from tools.calibration import parity_check
from tools.calibration import vbench_musiq_parity


def test_musiq_matches_the_official_run_and_the_table():
    rows = vbench_musiq_parity.run()
    for row in rows:
        print(f"{row.backend} {row.check} {row.compared[:60]}: max abs {row.max_abs_diff:.3g}, "
              f"rel {row.max_rel_diff:.3g}, element ratio {row.element_ratio:.3g}")
    parity_check.assert_rows(rows)
