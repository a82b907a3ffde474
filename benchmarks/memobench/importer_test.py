"""Importing official-shaped outputs reproduces leaderboard.py's per-model numbers."""

import math

import pandas as pd
import pytest

from benchmarks.common.errors import InputError
from benchmarks.memobench import importer
from benchmarks.memobench import leaderboard
from benchmarks.memobench import leaderboard_files as files_lib
from benchmarks.memobench import leaderboard_fixture as fixture
from benchmarks.memobench import official_clips
from benchmarks.memobench import verification
from proto import scorecard_pb2


def test_official_clip_list():
    assert len(official_clips.SYNTHETIC) == 196 and len(official_clips.REAL) == 164
    assert len({c.rsplit("_", 1)[0] for c in official_clips.SYNTHETIC}) == 14
    assert "Middle_Age_003" not in official_clips.SYNTHETIC
    assert official_clips.REAL[:2] == ("001", "002") and official_clips.REAL[-1] == "273"
    assert len(official_clips.VQA) == 45 and set(official_clips.VQA) < set(official_clips.SYNTHETIC)


def test_means_equal_the_leaderboard_aggregation(tmp_path):
    df = fixture.official_csv(tmp_path / "eval_both.csv")
    card, samples = importer.build_scorecard(tmp_path / "eval_both.csv", "M")
    metrics = {m.id: m for m in card.metrics}
    for metric, column in (("VisualQuality", "VisualQuality"),
                           ("MotionSmoothness", "MotionSmoothness"),
                           ("ImageRewardScore", "ImageRewardScore_pct"),
                           ("CameraControllability", "CameraControllability"),
                           ("GT_ALL_PSNR", "GT_ALL_PSNR"), ("GT_ALL_LPIPS", "GT_ALL_LPIPS")):
        assert metrics[metric].value == pytest.approx(fixture.leaderboard_mean(df, column), abs=1e-12)
    assert metrics["ImageRewardScore"].sample_count == 2
    assert not metrics["ORS"].available
    assert [s.sample_id for s in samples if s.error] == ["Barnyard_003"]
    assert card.verification.scope == scorecard_pb2.IMPORTED_OFFICIAL_RESULTS
    assert not card.verification.leaderboard_eligible
    assert card.coverage.expected == 360 and card.coverage.evaluated == 3
    assert len(card.coverage.missing_sample_ids) == 356


def test_camera_mean_below_one_is_scaled_as_the_leaderboard_does(tmp_path):
    df = fixture.official_csv(tmp_path / "old.csv", camera_scale=1.0)
    card, _ = importer.build_scorecard(tmp_path / "old.csv", "M")
    camera = next(m for m in card.metrics if m.id == "CameraControllability")
    assert camera.value == pytest.approx(100 * fixture.leaderboard_mean(df, "CameraControllability"))
    assert any("multiplied by 100" in n for n in card.notes)


def test_bad_files_name_the_path(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        importer.build_scorecard(tmp_path / "none.csv", "M")
    (tmp_path / "bad.csv").write_text("a,b\n1,2\n")
    with pytest.raises(InputError, match=r"bad\.csv.*no id, data_type"):
        importer.build_scorecard(tmp_path / "bad.csv", "M")


def test_a_header_only_eval_csv_is_nothing_to_import(tmp_path):
    fixture.official_csv(tmp_path / "eval_both.csv").iloc[:0].to_csv(tmp_path / "h.csv", index=False)
    with pytest.raises(InputError, match=r"h\.csv: expected at least one clip row .*found a "
                                         r"header and no rows"):
        importer.build_scorecard(tmp_path / "h.csv", "M")


def test_a_cell_that_is_not_a_number_is_named_with_its_row_and_clip(tmp_path):
    df = fixture.official_csv(tmp_path / "eval_both.csv").astype({"GT_ALL_SSIM": object})
    df.loc[1, "GT_ALL_SSIM"] = "abc"
    df.loc[2, "GT_ALL_SSIM"] = "x"
    df.to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(InputError) as raised:
        importer.build_scorecard(tmp_path / "bad.csv", "M")
    assert str(raised.value) == (
        f"{tmp_path / 'bad.csv'}: expected numbers in column GT_ALL_SSIM, found 'abc' on "
        "row 3 (the header is row 1; clip Barnyard_002), and 1 more such cells")


def test_combined_import_reproduces_the_leaderboard_exactly(tmp_path):
    models = files_lib.load_all(**fixture.build_tree(tmp_path))
    table = leaderboard.build_table(models).set_index("Model")
    for key, results in models.items():
        card, _ = importer.build(results, files_lib.display_name(key))
        values = fixture.metric_values(card)
        for column, expected in table.loc[files_lib.display_name(key)].items():
            if pd.isna(expected):
                assert math.isnan(values[column]), (key, column)
            else:
                assert values[column] == expected, (key, column)  # exactly, not approx
        assert card.verification.scope == scorecard_pb2.IMPORTED_OFFICIAL_RESULTS
        assert not card.verification.leaderboard_eligible


def test_per_clip_rows_merge_across_steps_and_coverage_says_what_each_step_had(tmp_path):
    models = files_lib.load_all(**fixture.build_tree(tmp_path))
    card, samples = importer.build(models["lingbot-world"], "LingBot-World")
    by_key = {f"{s.split}/{s.sample_id}": s for s in samples}
    first = by_key["synthetic/Barnyard_001"]
    assert {"raw:VisualQuality", "VisualQuality", "ORS", "raw_ors:detection_rate",
            "InstructionFollowing"} <= set(first.metrics)
    assert first.metrics["ORS"] == first.metrics["raw_ors:ors"]  # 0-1, as in the file
    assert 0 <= first.metrics["InstructionFollowing"] <= 1
    for metric in card.metrics:  # intervals on the metric's own (x100) scale
        if metric.id in ("ORS", "InstructionFollowing", "VisualQuality"):
            assert metric.ci95.low < metric.value < metric.ci95.high, metric.id
    failed = by_key["synthetic/Barnyard_002"]  # Step 1 error row, but ORS and VQA values
    assert not failed.error and "Failed to read" in failed.diagnostics["step1_error"]
    assert "VisualQuality" not in failed.metrics and "ORS" in failed.metrics
    assert failed.unavailable["VisualQuality"].startswith("Step 1 failed")
    zen = by_key["synthetic/ZenGarden_002"]  # the VQA file spells it Zen_Garden
    assert "PhysicsAdherence" in zen.metrics and zen.diagnostics["vqa_file"] == "Zen_Garden-2.csv"
    assert len(samples) == 7 and card.coverage.evaluated == 7 and card.coverage.failed == 0
    assert len(card.coverage.missing_sample_ids) == 353
    source = card.coverage.expected_source
    assert "Step 1: 6 of the 360 official clips, 1 failed [eval_both.csv]" in source
    assert "ORS: 7 of the 360 official clips [ors_scores.csv]" in source
    assert "VQA: 3 of the 45 VQA clips (failure-cases.csv) [lingbot-world]" in source
    assert verification.VQA_COVERAGE_NOTE in card.notes
    details = [b.detail for b in card.verification.blocking]
    assert any(d.startswith("VQA: 3 of the 45") and "missing: synthetic/Barnyard_009" in d
               for d in details)
    assert any(d.startswith("Step 1: 1 clips failed: synthetic/Barnyard_002") for d in details)


def test_complete_official_files_leave_only_the_import_blocker(tmp_path):
    clips = [("synthetic", c) for c in official_clips.SYNTHETIC] + [
        ("real", c) for c in official_clips.REAL]
    results = files_lib.ModelResults(
        "m", eval=files_lib.read_eval_csv(fixture.write_eval_csv(tmp_path / "eval_both.csv",
                                                                 clips, 1)),
        ors=files_lib.read_ors_csv(fixture.write_ors_csv(tmp_path / "ors_scores.csv", clips, 2)),
        vqa=files_lib.read_vqa_dir(fixture.write_vqa_dir(tmp_path / "vqa", official_clips.VQA, 3)))
    card, samples = importer.build(results, "m")
    assert [b.reason for b in card.verification.blocking] == [
        scorecard_pb2.IMPORTED_NOT_RECOMPUTED]
    assert card.coverage.evaluated == 360 and not card.coverage.missing_sample_ids
    vqa = next(m for m in card.metrics if m.id == "InstructionFollowing")
    assert vqa.sample_count == 45 and len(samples) == 360


def test_a_leaderboard_csv_alone_gives_model_level_values_only(tmp_path):
    roots = fixture.build_tree(tmp_path)
    table = leaderboard.build_table(files_lib.load_all(**roots))
    path = leaderboard.write_csv(table, tmp_path / "leaderboard.csv")
    row = importer.leaderboard_row(path, "wan2.2")
    assert row.model == "Wan2.2"
    card, samples = importer.build(files_lib.ModelResults("wan2.2"), row.model, row)
    assert samples == [] and card.coverage.evaluated == 0
    expected = table.set_index("Model").loc["Wan2.2"]
    for metric in card.metrics:
        if metric.leaderboard_metric:
            assert metric.value == float("%.4f" % expected[metric.id]), metric.id
            assert metric.sample_count == 0 and metric.backend.name.endswith("leaderboard.py output")
        else:
            assert not metric.available
    assert "model-level means only, no per-clip rows, so coverage is unknown" in (
        card.coverage.expected_source)
    unknown = [b.detail for b in card.verification.blocking
               if b.reason == scorecard_pb2.INCOMPLETE_COVERAGE]
    assert unknown == [f"{s}: per-clip coverage unknown (model-level values only)"
                       for s in ("Step 1", "ORS", "VQA")]
    with pytest.raises(InputError, match="one row for model 'Nobody'"):
        importer.leaderboard_row(path, "Nobody")
    assert importer.leaderboard_row(path, "StableVirtualCamera").model == "SVC"


def test_steps_and_a_leaderboard_csv_together(tmp_path):
    roots = fixture.build_tree(tmp_path)
    table = leaderboard.build_table(files_lib.load_all(**roots))
    table.loc[table["Model"] == "Wan2.2", "VisualQuality"] += 1  # disagrees with the files
    path = leaderboard.write_csv(table, tmp_path / "leaderboard.csv")
    results = files_lib.ModelResults(
        "wan2.2", eval=files_lib.read_eval_csv(roots["eval_dir"] / "wan2.2" / "eval_both.csv"))
    card, _ = importer.build(results, "Wan2.2", importer.leaderboard_row(path, "Wan2.2"))
    metrics = {m.id: m for m in card.metrics}
    assert metrics["VisualQuality"].backend.name.endswith("run_eval.py output")
    assert metrics["ORS"].backend.name.endswith("leaderboard.py output")
    assert any(n.startswith("VisualQuality: leaderboard.csv says") for n in card.notes)
    assert not any(n.startswith("MotionSmoothness: leaderboard.csv") for n in card.notes)
