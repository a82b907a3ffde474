"""ViCLIP: worldeval's metrics/viclip equals the official ViCLIP code (Miradata 7ad0579) on
the stored outputs of metrics/viclip/testdata/viclip_upstream.json."""

import numpy as np

from metrics.viclip import inputs
from tools.calibration import official_numbers
from tools.calibration import parity_check
from tools.calibration import parity_table
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


def test_the_frame_record_pins_the_antialias_setting_and_the_middle_frames():
    """Under torchvision 0.13.1 the official tensor Resize does not antialias: ours with
    antialias=True is far outside the tolerance there (antialias=False within float
    noise), and the record's frame indices are ours."""
    numbers = official_numbers.read(viclip_parity.FRAMES_OFFICIAL)
    video = viclip_parity.frame_videos()[0]
    indices = inputs.middle_frame_indices(len(video))
    assert indices == [int(v) for _, _, v in numbers[(0, "video0_indices")]]
    for antialias, within in ((False, True), (True, False)):
        pixels = inputs.pixel_values(video[indices], antialias=antialias)
        wanted = numbers[(3, "video0_tv013")]
        mine = official_numbers.stats_like(pixels[3], wanted)
        relative = parity_table.differences(mine, np.array([v for _, _, v in wanted]))[1]
        assert (relative < 1e-6) if within else (relative > 1e-3), (antialias, relative)
