"""3D consistency: the official pair schedule, the per-pair values against a numpy
transcription of the official per-inlier loop, determinism under a seed."""

import cv2
import numpy as np
import pytest

from benchmarks.mirabench import consistency_3d
from tools.fixtures import mirabench_clips


def _official_schedule(n):
    """calculate_3D_consistency_*'s loop, transcribed from the spec (§3.3)."""
    pairs = []
    for interval in [60, 50, 40, 30, 20, 10]:
        match_inter = int((n - 0 - interval) / 5)
        if match_inter <= 0:
            continue
        i = 0
        while i < n:
            if i + interval > n - 1:
                break
            pairs.append((i, i + interval))
            i += match_inter
    return pairs


@pytest.mark.parametrize("n", [50, 100, 300])
def test_pair_schedule_is_the_official_one(n):
    assert consistency_3d.pair_schedule(n) == _official_schedule(n)


def test_pair_schedule_known_counts():
    assert len(consistency_3d.pair_schedule(50)) == 5 * 4   # interval 60 and 50 skipped
    assert consistency_3d.pair_schedule(50)[:2] == [(0, 40), (2, 42)]
    assert len(consistency_3d.pair_schedule(100)) == 30
    assert len(consistency_3d.pair_schedule(300)) == 30
    assert consistency_3d.pair_schedule(14) == []            # no pair: official NaN
    assert consistency_3d.pair_schedule(15) == [(i, i + 10) for i in range(5)]


def test_epipolar_errors_equal_a_loop_transcription():
    rng = np.random.default_rng(1)
    src = rng.uniform(0, 1280, (40, 1, 2)).astype(np.float32)
    dst = rng.uniform(0, 720, (40, 1, 2)).astype(np.float32)
    fundamental = rng.normal(size=(3, 3))
    inliers = rng.integers(0, 2, (40, 1)).astype(np.uint8)
    expected = []
    for k in range(40):
        if inliers[k] == 0:
            continue
        p1 = np.array([src[k][0][0], src[k][0][1], 1.0])
        p2 = np.array([dst[k][0][0], dst[k][0][1], 1.0])
        line = np.dot(fundamental, p1)
        expected.append(abs(np.dot(line, p2)) / np.sqrt(line[0] ** 2 + line[1] ** 2))
    got = consistency_3d.epipolar_errors(inliers, src, dst, fundamental)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.fixture(scope="module")
def clip():
    return mirabench_clips.parallax_clip(13)


def test_pair_values_deterministic_under_a_seed_and_rigid(clip):
    a = consistency_3d.pair_values(clip[0], clip[12], seed=3)
    b = consistency_3d.pair_values(clip[0], clip[12], seed=3)
    assert a == b
    assert a["3D_consistency_num_pts"] > 200
    assert a["3D_consistency_keep_ratio"] > 0.9
    assert a["3D_consistency_mean_err"] < 0.5      # a rigid two-plane scene
    assert a["3D_consistency_rmse"] >= a["3D_consistency_mean_err"]
    assert a["3D_consistency_keep_ratio"] == pytest.approx(
        a["3D_consistency_num_inliers_F"] / a["3D_consistency_num_pts"])


def test_blank_pair_fails_as_upstream_raises():
    blank = np.zeros((72, 128, 3), np.uint8)
    with pytest.raises(consistency_3d.PairFailed):
        consistency_3d.pair_values(blank, blank)


def test_resize_is_opencv_default(clip):
    assert consistency_3d.SIZE == (1280, 720)
    assert cv2.resize(clip[0], consistency_3d.SIZE).shape == (720, 1280, 3)


def test_seed_0_recomputed_is_the_first_official_call():
    """Ours with seed 0, recomputed now, equals the committed official first call on pair
    0-10 (all five values). The table's `ours_seeded` rows are a record of the producing
    run: no test reads them (//tools/calibration:no_stored_ours_test)."""
    import csv  # pylint: disable=import-outside-toplevel
    import pathlib  # pylint: disable=import-outside-toplevel
    table = pathlib.Path(__file__).parent / "calibration" / "consistency_3d_official.csv"
    with open(table, encoding="utf-8") as f:
        official = next(r for r in csv.DictReader(f) if r["pair"] == "0-10"
                        and r["implementation"] == "official" and r["call"] == "0")
    fields = ("num_pts", "num_inliers_F", "keep_ratio", "mean_err", "rmse")
    frames = mirabench_clips.parallax_clip(61, 0)
    now = consistency_3d.pair_values(frames[0], frames[10], seed=0)
    for key, column in zip(fields, consistency_3d.COLUMNS):
        assert now[column] == pytest.approx(float(official[key]), rel=1e-5)
