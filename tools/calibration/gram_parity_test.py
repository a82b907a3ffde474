"""VGG19 Gram style distance: worldeval's style_consistency equals WorldScore's
gram_matrix_metrics.py on the stored numbers, at 512 and at 128."""

from tools.calibration import gram_parity
from tools.calibration import parity_check


def test_gram_matches_the_official_run_and_the_table():
    parity_check.assert_rows(gram_parity.run())
