"""ViCLIP: worldeval's metrics/viclip equals the official ViCLIP code (Miradata 7ad0579) on
the stored outputs of metrics/viclip/testdata/viclip_upstream.json."""

from tools.calibration import parity_check
from tools.calibration import viclip_parity


def test_viclip_matches_the_official_run_and_the_table():
    rows = viclip_parity.run()
    for row in rows:
        print(f"{row.check} {row.compared}: max abs {row.max_abs_diff:.3g}, "
              f"rel {row.max_rel_diff:.3g}")
    parity_check.assert_rows(rows)


def test_the_long_caption_is_cut_at_the_context():
    record = viclip_parity.official()
    lengths = [sum(1 for t in row if t) for row in record["caption_tokens"]]
    assert max(lengths) == viclip_parity.SMALL.context_length, lengths  # truncation exercised
