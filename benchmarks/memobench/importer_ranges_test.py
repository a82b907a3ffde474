"""Importing impossible values: a NaN, an infinity or a value outside the metric table's
official range is a per-clip error (or an unavailable metric for model-level files),
never a headline; a value outside only the nominal range is kept with a warning."""

import json
import math

import pandas as pd
import pytest

from benchmarks.memobench import importer
from benchmarks.memobench import leaderboard
from benchmarks.memobench import leaderboard_files as files_lib
from benchmarks.memobench import leaderboard_fixture as fixture
from proto import scorecard_pb2


def test_impossible_eval_csv_values_are_per_clip_errors_not_headlines(tmp_path):
    df = fixture.official_csv(tmp_path / "eval_both.csv")
    valid = df.copy()
    df.loc[0, "GT_ALL_SSIM"] = 7.5
    df.loc[1, "GT_ALL_PSNR"] = -40.0
    df.loc[2, "GT_ALL_PSNR"] = math.inf
    df.loc[1, "GT_ALL_LPIPS"] = -0.25
    df.loc[2, "VisualQuality"] = 100.5
    df.to_csv(tmp_path / "bad.csv", index=False)
    assert ",inf," in (tmp_path / "bad.csv").read_text()  # as pandas writes it
    card, samples = importer.build_scorecard(tmp_path / "bad.csv", "M")
    metrics = {m.id: m for m in card.metrics}
    ssim = metrics["GT_ALL_SSIM"]
    assert ssim.value == pytest.approx(valid["GT_ALL_SSIM"][1:3].mean(), abs=1e-12)
    assert ssim.sample_count == 2 and ssim.expected_sample_count == 3
    assert list(ssim.missing_sample_ids) == ["synthetic/Barnyard_001"]
    assert ssim.missing_reasons["synthetic/Barnyard_001"] == (
        "bad.csv row 2 (clip Barnyard_001): GT_ALL_SSIM 7.5 is outside its official range "
        "[-1, 1]")
    psnr = metrics["GT_ALL_PSNR"]
    assert psnr.value == valid["GT_ALL_PSNR"][0] and psnr.sample_count == 1
    assert "GT_ALL_PSNR -40.0 is outside its official range [0, 148.14]" in (
        psnr.missing_reasons["synthetic/Barnyard_002"])
    assert "GT_ALL_PSNR inf is not a finite number" in psnr.missing_reasons["real/001"]
    assert metrics["GT_ALL_LPIPS"].sample_count == 2
    assert metrics["VisualQuality"].value == pytest.approx(
        valid["VisualQuality"][0:2].mean(), abs=1e-12)
    first = next(s for s in samples if s.sample_id == "Barnyard_001")
    assert "7.5 is outside" in first.unavailable["GT_ALL_SSIM"]
    assert "GT_ALL_SSIM" not in first.metrics and not any(
        math.isinf(v) for s in samples for v in s.metrics.values())
    note = next(n for n in card.notes if n.startswith("5 imported values are not finite"))
    assert "bad.csv row 2 (clip Barnyard_001) GT_ALL_SSIM=7.5" in note
    assert scorecard_pb2.INCOMPLETE_METRIC_COVERAGE in {
        b.reason for b in card.verification.blocking}


def test_a_negative_ssim_or_an_lpips_above_one_is_kept_with_a_warning(tmp_path):
    df = fixture.official_csv(tmp_path / "eval_both.csv")
    df.loc[0, "GT_ALL_SSIM"], df.loc[1, "GT_ALL_LPIPS"] = -0.2, 1.3
    df.to_csv(tmp_path / "odd.csv", index=False)
    card, _ = importer.build_scorecard(tmp_path / "odd.csv", "M")
    metrics = {m.id: m for m in card.metrics}
    assert metrics["GT_ALL_SSIM"].value == pytest.approx(fixture.leaderboard_mean(df, "GT_ALL_SSIM"))
    assert metrics["GT_ALL_LPIPS"].sample_count == 3
    assert any(n.startswith("2 imported values are outside their metric's nominal range")
               for n in card.notes)


def test_impossible_ors_and_vqa_values_are_per_clip_errors(tmp_path):
    clips = fixture.SOME_CLIPS
    ors_path = fixture.write_ors_csv(tmp_path / "ors_scores.csv", clips, 2)
    ors = pd.read_csv(ors_path, dtype={"clip_id": str})
    valid = ors["ors"].copy()
    ors.loc[0, "ors"], ors.loc[1, "ors"] = 1.5, -math.inf
    ors.to_csv(ors_path, index=False)
    vqa_dir = fixture.write_vqa_dir(tmp_path / "vqa", ["Barnyard_001", "Barnyard_002"], 3)
    first = pd.read_csv(vqa_dir / "Barnyard-1.csv")
    score = json.loads(first.loc[0, "score"])
    score["Instruction Following"] = math.inf  # json.dumps writes Infinity
    first.loc[0, "score"] = json.dumps(score)
    first.to_csv(vqa_dir / "Barnyard-1.csv", index=False)
    results = files_lib.ModelResults("m", ors=files_lib.read_ors_csv(ors_path),
                                     vqa=files_lib.read_vqa_dir(vqa_dir))
    card, samples = importer.build(results, "m")
    metrics = {m.id: m for m in card.metrics}
    assert metrics["ORS"].value == pytest.approx(valid[2:].mean() * 100, abs=1e-12)
    assert metrics["ORS"].sample_count == len(clips) - 2
    assert metrics["ORS"].missing_reasons["synthetic/Barnyard_001"] == (
        "ors_scores.csv row 2 (clip Barnyard_001): ORS 1.5 is outside its official range "
        "[0, 1]")
    follow = metrics["InstructionFollowing"]
    assert follow.sample_count == 1 and math.isfinite(follow.value)
    assert list(follow.missing_reasons.items()) == [("synthetic/Barnyard_001", (
        "Barnyard-1.csv (clip Barnyard-1): InstructionFollowing inf is not a finite number"))]
    assert "InstructionFollowing" not in samples[0].metrics  # Barnyard_001


def test_impossible_leaderboard_csv_values_make_the_metric_unavailable(tmp_path):
    table = leaderboard.build_table(files_lib.load_all(**fixture.build_tree(tmp_path)))
    wan = table["Model"] == "Wan2.2"
    table.loc[wan, "GT_ALL_SSIM"], table.loc[wan, "ORS"] = 2.436, 150.0
    table.loc[wan, "PhysicsAdherence"] = math.inf
    path = leaderboard.write_csv(table, tmp_path / "leaderboard.csv")
    card, _ = importer.build(files_lib.ModelResults("wan2.2"), "Wan2.2",
                             importer.leaderboard_row(path, "Wan2.2"))
    metrics = {m.id: m for m in card.metrics}
    assert metrics["GT_ALL_SSIM"].unavailable_reason == (
        "leaderboard.csv row Wan2.2: GT_ALL_SSIM 2.436 is outside its official range [-1, 1]")
    assert "ORS 150.0 is outside its official range [0, 100]" in metrics["ORS"].unavailable_reason
    assert "PhysicsAdherence inf is not a finite" in metrics["PhysicsAdherence"].unavailable_reason
    assert not any(metrics[m].available for m in ("GT_ALL_SSIM", "ORS", "PhysicsAdherence"))
    assert metrics["GT_ALL_PSNR"].available and metrics["VisualQuality"].available
    assert any(n.startswith("3 imported values are not finite") for n in card.notes)
