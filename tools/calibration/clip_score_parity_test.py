"""CLIPScore: worldeval's metrics/clip clip_score equals torchmetrics' CLIPScore on the
stored numbers."""

from tools.calibration import clip_score_parity
from tools.calibration import parity_check


def test_clip_score_matches_the_official_run_and_the_table():
    parity_check.assert_rows(clip_score_parity.run())
