"""MapAnything: worldeval's pose call path and rotation-ATE arithmetic equal MemoBench's on
the stored numbers of the official run (official_runs/mapanything.py). Only the scoring
is recomputed here; the call path's rows are recorded comparisons (not verified)."""

import numpy as np

from benchmarks.common import calibration
from benchmarks.memobench.step1 import camera
from metrics.camera import rotation_ate
from tools.calibration import frames as frames_lib
from tools.calibration import mapanything_parity
from tools.calibration import official_numbers
from tools.calibration import parity_check


def _official():
    return official_numbers.read(mapanything_parity.OFFICIAL)


def test_mapanything_matches_the_official_run_and_the_table():
    parity_check.assert_rows(mapanything_parity.run())


def test_the_rows_ci_cannot_recompute_are_recorded_and_not_verified():
    """Preprocess and features compare our stored views and poses with the official ones
    (CI never runs estimate_poses): recorded, so the backend is not verified. The score
    row is recomputed (our rotation-ATE scoring on the stored official poses)."""
    rows = mapanything_parity.run()
    assert {r.check: bool(r.recorded) for r in rows} == {
        "preprocess": True, "features": True, "score": False}
    assert all(r.recorded == mapanything_parity.RECORDED for r in rows if r.recorded)
    parity = calibration.parity_from_rows(mapanything_parity.BACKEND, rows)
    assert not parity.verified and "not recomputed by CI" in parity.scope


def test_rounded_columns_equal_what_the_official_function_returns():
    official = _official()
    columns = ("CameraControllability", "ATE_RotDeg", "TotalGT_RotDeg", "MeanRotErrorDeg")
    for k, score in enumerate(mapanything_parity.our_scores(official)):
        ours = camera.official_columns(score)
        theirs = mapanything_parity.official_metrics(official, k, "_rounded")
        assert [ours[c] for c in columns] == [theirs[m] for m in mapanything_parity.METRICS]


def test_the_check_is_not_trivial():
    official = _official()
    coverage = [official[(k, "clip_coverage")][0][2] for k in range(len(frames_lib.SIZES))]
    # One clip clamped at 0 (ATE above the GT rotation), the others strictly inside (0, 1).
    assert coverage[0] == 0.0 and all(0.0 < c < 1.0 for c in coverage[1:]), coverage
    # load_images' fixed-mapping resolutions (518 px long side, multiples of 14), per size.
    shapes = [official[(k * frames_lib.FRAMES_PER_SIZE, "views_official")][0][0]
              for k in range(len(frames_lib.SIZES))]
    assert shapes == ["3x392x518", "3x518x518", "3x294x518", "3x294x518"]


def test_the_gt_resampling_matters():
    """Scoring the first 3 GT poses instead of the resampled ones fails the tolerance."""
    official = _official()
    n = frames_lib.FRAMES_PER_SIZE
    theirs = mapanything_parity.official_metrics(official, 3)
    poses = np.array([[official[(9 + i, "pose_official")][j][2] for j in range(16)]
                      for i in range(n)]).reshape(n, 4, 4)
    wrong = rotation_ate.rotation_ate_score(mapanything_parity.gt_poses(3)[:n], poses)
    assert abs(wrong.ate_rot_deg - theirs["ate_rot_deg"]) > 1.0
