"""Importing an official-shaped eval CSV reproduces leaderboard.py's per-model numbers."""

import numpy as np
import pandas as pd
import pytest

from benchmarks.common.errors import InputError
from benchmarks.memobench import eval_csv
from benchmarks.memobench import importer
from benchmarks.memobench import official_clips
from proto import scorecard_pb2


def test_official_clip_list():
    assert len(official_clips.SYNTHETIC) == 196 and len(official_clips.REAL) == 164
    assert len({c.rsplit("_", 1)[0] for c in official_clips.SYNTHETIC}) == 14
    assert "Middle_Age_003" not in official_clips.SYNTHETIC
    assert official_clips.REAL[:2] == ("001", "002") and official_clips.REAL[-1] == "273"


def _official_csv(path, camera_scale=100.0):
    rng = np.random.default_rng(0)
    rows = []
    for i, clip in enumerate(["Barnyard_001", "Barnyard_002", "001"]):
        row = {c: float(rng.uniform(0, 1)) for c in eval_csv.COLUMNS[3:]}
        row.update(id=clip, scene="real" if clip == "001" else "Barnyard",
                   data_type="real" if clip == "001" else "synthetic", num_frames=81)
        row["CameraControllability"] = camera_scale * float(rng.uniform(0, 1))
        if i == 1:
            row["ImageRewardScore_pct"] = np.nan  # a clip without prompt
        rows.append(row)
    rows.append({"id": "Barnyard_003", "scene": "Barnyard", "data_type": "synthetic",
                 "error": "Failed to read frame"})
    df = pd.DataFrame(rows)
    df.to_csv(path, index=False)
    return df


def _leaderboard_mean(df, column):
    """leaderboard.py: plain mean over clips, skipna."""
    return float(pd.to_numeric(df[column], errors="coerce").mean(skipna=True))


def test_means_equal_the_leaderboard_aggregation(tmp_path):
    df = _official_csv(tmp_path / "eval_both.csv")
    card, samples = importer.build_scorecard(tmp_path / "eval_both.csv", "M")
    metrics = {m.id: m for m in card.metrics}
    for metric, column in (("VisualQuality", "VisualQuality"),
                           ("MotionSmoothness", "MotionSmoothness"),
                           ("ImageRewardScore", "ImageRewardScore_pct"),
                           ("CameraControllability", "CameraControllability"),
                           ("GT_ALL_PSNR", "GT_ALL_PSNR"), ("GT_ALL_LPIPS", "GT_ALL_LPIPS")):
        assert metrics[metric].value == pytest.approx(_leaderboard_mean(df, column), abs=1e-12)
    assert metrics["ImageRewardScore"].sample_count == 2
    assert not metrics["ORS"].available
    assert [s.sample_id for s in samples if s.error] == ["Barnyard_003"]
    assert card.verification.scope == scorecard_pb2.IMPORTED_OFFICIAL_RESULTS
    assert not card.verification.leaderboard_eligible
    assert card.coverage.expected == 360 and card.coverage.evaluated == 3
    assert len(card.coverage.missing_sample_ids) == 356


def test_camera_mean_below_one_is_scaled_as_the_leaderboard_does(tmp_path):
    df = _official_csv(tmp_path / "old.csv", camera_scale=1.0)
    card, _ = importer.build_scorecard(tmp_path / "old.csv", "M")
    camera = next(m for m in card.metrics if m.id == "CameraControllability")
    assert camera.value == pytest.approx(100 * _leaderboard_mean(df, "CameraControllability"))
    assert any("multiplied by 100" in n for n in card.notes)


def test_bad_files_name_the_path(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        importer.build_scorecard(tmp_path / "none.csv", "M")
    (tmp_path / "bad.csv").write_text("a,b\n1,2\n")
    with pytest.raises(InputError, match=r"bad\.csv.*no id, data_type"):
        importer.build_scorecard(tmp_path / "bad.csv", "M")
