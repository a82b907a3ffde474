"""VBench subject_consistency's DINO backend equals the official VBench / DINO hub code on
seeded random full-size weights (the stored run of official_runs/vbench_clip_dino.py)."""

from benchmarks.vbench.dimensions import subject_consistency
from metrics.dino import vit
from tools.calibration import parity_check
from tools.calibration import parity_table
from tools.calibration import vbench_dino_parity
from tools.calibration import vbench_record


def test_dino_matches_the_official_run_and_the_table():
    rows = vbench_dino_parity.run()
    for row in rows:
        print(f"{row.backend} {row.check} {row.compared[:60]}: max abs {row.max_abs_diff:.3g}, "
              f"rel {row.max_rel_diff:.3g}, element ratio {row.element_ratio:.3g}")
    parity_check.assert_rows(rows)


def test_the_position_table_offset_is_pinned():
    """DINO resamples its 14x14 position table for the 14x24 grid of the 641x361 clip with
    scale factors (g + 0.1) / 14: without the 0.1 the features leave the tolerance."""
    model = vbench_dino_parity.load()
    clip = vbench_record.clips()[3]
    official = vbench_record.arrays()["subject/features"][9:12]
    video = vbench_record.video(clip, 3)
    mine = subject_consistency.frame_features(video, model)
    assert parity_table.differences(mine, official)[1] < 1e-5
    previous, vit.INTERPOLATE_OFFSET = vit.INTERPOLATE_OFFSET, 0.0
    try:
        moved = subject_consistency.frame_features(video, model)
    finally:
        vit.INTERPOLATE_OFFSET = previous
    relative = parity_table.differences(moved, official)[1]
    print(f"without the offset: rel {relative:.3g}")
    assert relative > 1e-3, relative
