"""VBench human_action's UMT backend equals the official VBench code on seeded random
full-size weights: every row (full forwards on both clips; minutes on two CPU cores)."""

from tools.calibration import parity_check
from tools.calibration import vbench_umt_parity


def test_umt_matches_the_official_run_and_the_table():
    rows = vbench_umt_parity.run()
    for row in rows:
        print(f"{row.check} {row.compared[:60]}: max abs {row.max_abs_diff:.3g}, "
              f"rel {row.max_rel_diff:.3g}, element ratio {row.element_ratio:.3g}")
    parity_check.assert_rows(rows)
