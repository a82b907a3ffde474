"""eval_{mode}.csv: the official 48 columns, order, percentages, composites and quirks."""

import io

import numpy as np
import pandas as pd

from benchmarks.memobench import eval_csv
from proto import scorecard_pb2

OFFICIAL_COLUMNS = """id, scene, data_type, num_frames, h_start, r_start, gt_frames,
TemporalScore, AestheticScore, ImageQuality, ObjIdentityMean, ObjIdentityMin,
GeoConsistencyMean, GeoConsistencyMin, ImageRewardScore, GTRevisitSim,
GT_O_PSNR, GT_O_SSIM, GT_O_LPIPS, GT_H_PSNR, GT_H_SSIM, GT_H_LPIPS,
GT_R_PSNR, GT_R_SSIM, GT_R_LPIPS, GT_ALL_PSNR, GT_ALL_SSIM, GT_ALL_LPIPS,
CameraControllability, ATE_RotDeg, TotalGT_RotDeg, MeanRotErrorDeg, fx, fy,
TemporalScore_pct, AestheticScore_pct, ImageQuality_pct, GeoConsistencyMean_pct,
GeoConsistencyMin_pct, ImageRewardScore_pct, GTRevisitSim_pct, ObjIdentityMean_pct,
ObjIdentityMin_pct, CameraControllability_pct,
MotionSmoothness, VisualQuality, Geo3DConsistency, ObjIdentityConsistency"""
OFFICIAL = [c.strip() for c in OFFICIAL_COLUMNS.replace("\n", " ").split(",")]

RAW = {"TemporalScore": 0.8123, "AestheticScore": 5.4321, "ImageQuality": 0.6789,
       "ObjIdentityMean": 0.77777, "ObjIdentityMin": 0.55555, "GeoConsistencyMean": 0.9123,
       "GeoConsistencyMin": 0.8456, "ImageRewardScore": 0.3014, "GTRevisitSim": 0.88,
       "CameraControllability": 0.4449, "GT_ALL_PSNR": 14.1234, "fx": 500.12, "fy": 499.0}


def _sample(sid, raw, error=""):
    s = scorecard_pb2.SampleScore(sample_id=sid, split="synthetic", scene="Barnyard", error=error)
    if not error:
        s.diagnostics.update({"num_frames": "81", "h_start": "27", "r_start": "54",
                              "gt_frames": "300"})
        s.metrics.update({eval_csv.RAW_KEY_PREFIX + k: v for k, v in raw.items()})
    return s


def _official_pct(x, lo, hi):
    """run_eval.py: ((x-lo)/(hi-lo)*100).clip(0,100).round(1), on one value."""
    return float(pd.Series([x]).sub(lo).div(hi - lo).mul(100).clip(0, 100).round(1)[0])


def test_columns_are_the_official_48_in_order():
    df = eval_csv.build_frame([_sample("Barnyard_001", RAW)])
    assert len(OFFICIAL) == 48
    assert list(df.columns) == OFFICIAL == list(eval_csv.COLUMNS)


def test_percentages_composites_and_in_place_overwrites():
    row = eval_csv.build_frame([_sample("Barnyard_001", RAW)]).iloc[0]
    mean_pct = _official_pct(0.77777, 0, 1)   # 77.8
    min_pct = _official_pct(0.55555, 0, 1)    # 55.6 (half-way cases follow numpy rounding)
    assert row["ObjIdentityConsistency"] == round(0.7 * mean_pct + 0.3 * min_pct, 2)
    assert row["AestheticScore_pct"] == 54.3
    assert row["VisualQuality"] == round((54.3 + 67.9) / 2, 2)
    assert row["MotionSmoothness"] == 81.2
    assert row["Geo3DConsistency"] == round(0.7 * 91.2 + 0.3 * 84.6, 2)
    # Overwritten in place with the 0-100 value: the raw 0-1 values are gone (spec §4.5/4.6).
    assert row["ImageRewardScore"] == 30.1 and row["CameraControllability"] == 44.5
    assert row["GTRevisitSim"] == 88.0
    assert row["GT_ALL_PSNR"] == 14.1234 and row["fx"] == 500.12


def test_none_metric_columns_stay_empty_and_do_not_crash():
    # Every model metric None (as when only pixel fidelity ran): the official code raises
    # TypeError under pandas 2; the cells must simply be empty.
    raw = {"GT_ALL_PSNR": 20.5, "GT_ALL_SSIM": 0.5, "fx": 1.0, "fy": 1.0}
    text = eval_csv.build_frame([_sample("Barnyard_001", raw)]).to_csv(index=False)
    back = pd.read_csv(io.StringIO(text))
    assert list(back.columns) == OFFICIAL
    assert back["GT_ALL_PSNR"][0] == 20.5
    for col in ("TemporalScore", "MotionSmoothness", "VisualQuality", "ImageRewardScore_pct",
                "CameraControllability", "GT_ALL_LPIPS"):
        assert np.isnan(back[col][0]), col


def test_failed_clip_row_and_error_column_position():
    df = eval_csv.build_frame([_sample("Barnyard_001", RAW), _sample("Barnyard_002", {},
                                                                     error="bad frames")])
    cols = list(df.columns)
    assert cols.index("error") == cols.index("fy") + 1  # where pandas first meets it
    assert df["error"][1] == "bad frames" and np.isnan(df["GT_ALL_PSNR"][1])
    assert df["num_frames"][0] == 81.0  # ints become floats once a failed row exists


def test_all_failed_keeps_only_the_official_failure_columns():
    df = eval_csv.build_frame([_sample("A_001", {}, error="x")])
    assert list(df.columns) == ["id", "scene", "data_type", "error"]


def test_per_clip_composites_equal_the_csv_row():
    samples = [_sample("Barnyard_001", RAW),
               _sample("Barnyard_002", {**{k: v for k, v in RAW.items() if k != "ImageRewardScore"},
                                        "TemporalScore": 0.12345})]
    df = eval_csv.build_frame(samples)
    for i, sample in enumerate(samples):
        values = eval_csv.composites(sample)
        for metric, column in eval_csv.COMPOSITE_COLUMNS.items():
            if pd.isna(df[column][i]):
                assert metric not in values
            else:
                assert values[metric] == df[column][i], (metric, i)
    assert eval_csv.composites(samples[0])["MotionSmoothness"] == 81.2
