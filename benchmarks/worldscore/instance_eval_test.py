"""An instance's evaluation.json entries: official order, intra skip, the fallback."""

import json

import pytest

from benchmarks.worldscore import instance_eval
from benchmarks.worldscore import official_json


def test_order_fallback_and_intra_skip(tmp_path):
    outcomes = {("subjective_quality", "clip_aesthetic"): 6.0,
                ("subjective_quality", "clip_iqa+"): RuntimeError("no weights"),
                ("content_alignment", "clip_score"): 27.0,
                ("object_control", "object_detection"): 0.5,
                ("3d_consistency", "reprojection_error"): ValueError("no valid pixels")}
    entries, errors = instance_eval.entries("static", ["move_left"], outcomes)
    assert not errors
    assert list(entries) == [("object_control", "object_detection"),
                             ("content_alignment", "clip_score"),
                             ("3d_consistency", "reprojection_error"),
                             ("subjective_quality", "clip_iqa+"),
                             ("subjective_quality", "clip_aesthetic")]
    assert entries[("3d_consistency", "reprojection_error")] == (100, 0.0)
    assert entries[("subjective_quality", "clip_iqa+")] == (-100, 0.0)
    path = official_json.write_evaluation(tmp_path / "evaluation.json", entries)
    data = json.loads(path.read_text())
    assert list(data["subjective_quality"]) == ["clip_iqa+", "clip_aesthetic"]
    assert data["object_control"]["object_detection"] == {"score": 0.5, "score_normalized": 0.5}
    intra, _ = instance_eval.entries("static", ["orbit_right", "move_left"], outcomes)
    assert ("content_alignment", "clip_score") not in intra
    assert instance_eval.skipped("static", ["push_in"]) == {
        ("content_alignment", "clip_score"): "skipped for the intra layout push_in "
                                             "(camera_path[0])"}
    assert instance_eval.skipped("dynamic", ["push_in"]) == {}


def test_composite_failure_is_an_error_not_a_number():
    outcomes = {("camera_control", "camera_error"): RuntimeError("SLAM lost track"),
                ("motion_smoothness", "motion_smoothness"): [1.0, 0.99, 0.001]}
    entries, errors = instance_eval.entries("static", ["pan_left"], outcomes)
    assert entries == {} and "camera_error: RuntimeError: SLAM lost track" in errors[0]
    assert "crashes normalize_score" in errors[0]
    entries, errors = instance_eval.entries("dynamic", ["fixed"], outcomes)
    assert not errors and entries[("motion_smoothness", "motion_smoothness")][1] == pytest.approx(
        ((1 - 1 / 82.4014) + (0.99 - 0.9224) / (1 - 0.9224) + (1 - 0.001 / 0.0228)) / 3)


def test_existing_entries_come_first_and_stay():
    existing = {("subjective_quality", "clip_iqa+"): (0.6, 0.61)}
    entries, _ = instance_eval.entries("static", ["pan_left"], {
        ("object_control", "object_detection"): 1.0}, existing)
    assert list(entries) == [("subjective_quality", "clip_iqa+"),
                             ("object_control", "object_detection")]
    assert entries[("subjective_quality", "clip_iqa+")] == (0.6, 0.61)
