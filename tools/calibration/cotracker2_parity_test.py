"""CoTracker2 online: worldeval's metrics/tracking/cotracker2 equals upstream co-tracker
82e02e8's CoTrackerOnlinePredictor(window_len=8, v2=True) on the stored numbers."""

import numpy as np
import torch
import torch.nn.functional as F

from metrics.tracking.cotracker2 import calibration_inputs
from tools.calibration import cotracker2_parity
from tools.calibration import official_numbers
from tools.calibration import parity_check
from tools.calibration import parity_table


def test_cotracker2_matches_the_official_run_and_the_table():
    rows = cotracker2_parity.run()
    for row in rows:
        print(f"{row.check} {row.compared[:60]}: max abs {row.max_abs_diff:.3g}, "
              f"rel {row.max_rel_diff:.3g}, element ratio {row.element_ratio:.3g}")
    parity_check.assert_rows(rows)


def _resized_frame(t: int, align_corners: bool) -> torch.Tensor:
    frame = calibration_inputs.seeded_video()[0, t:t + 1]
    return F.interpolate(frame, (384, 512), mode="bilinear", align_corners=align_corners)[0]


def test_the_stored_samples_see_the_resize_convention():
    """The stored network input pins align_corners=True: the other convention (or a frame
    shifted by one) is far outside the tolerance on the stored stats alone. (One frame
    resized alone is a few ulps off the official 8-frame batch: not 0.)"""
    numbers = official_numbers.read(cotracker2_parity.PREPROCESS)

    def relative(frame, t):
        wanted = numbers[(t, "video")]
        mine = official_numbers.stats_like(frame, wanted)
        return parity_table.differences(mine, np.array([v for _, _, v in wanted]))[1]

    assert relative(_resized_frame(5, True), 5) < 1e-6
    assert relative(_resized_frame(5, False), 5) > 1e-3
    assert relative(_resized_frame(4, True), 5) > 1e-3


def test_the_record_stores_more_than_a_few_values_per_frame():
    numbers = official_numbers.read(cotracker2_parity.PREPROCESS)
    for t in range(calibration_inputs.FRAMES):
        values = [stat for _, stat, _ in numbers[(t, "video")] if stat.startswith("at:")]
        assert len(values) >= 512, (t, len(values))
    assert len(numbers[(0, "queries")]) == 100 * 3
