"""CoTracker3 offline: worldeval's metrics/tracking/cotracker3 equals co-tracker's
CoTrackerPredictor (as vendored in VMBench) on the stored numbers."""

from tools.calibration import cotracker3_parity
from tools.calibration import parity_check


def test_cotracker3_matches_the_official_run_and_the_table():
    rows, visible, agreement, track_px = cotracker3_parity.run_with_outputs()
    for row in rows:
        print(f"{row.check} {row.compared}: max abs {row.max_abs_diff:.3g}, "
              f"rel {row.max_rel_diff:.3g}")
    print(f"{visible.shape[2]} tracks; visibility flags equal: {agreement:.4f}; "
          f"visible: {float(visible.float().mean()):.3f}; max track difference {track_px:.3g} px")
    assert agreement == 1.0
    assert 0.1 < float(visible.float().mean()) < 0.9  # the 0.9 cut is exercised both ways
    parity_check.assert_rows(rows)
