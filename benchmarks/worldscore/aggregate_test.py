"""Aggregation against the official code's numbers on the hand-built trees, and by hand.

calibration/official_aggregation.json holds what the official run_evaluate
--only_calculate_mean wrote on the calibration_tree trees (calibration/official_run.py).
"""

import json
import pathlib

import numpy as np
import pytest

from benchmarks.worldscore import aggregate
from benchmarks.worldscore import aspects
from tools.fixtures import worldscore_calibration_tree as calibration_tree
from benchmarks.worldscore import official_json
from benchmarks.worldscore import recompute

OFFICIAL = json.loads((pathlib.Path(__file__).parent / "calibration"
                       / "official_aggregation.json").read_text())["models"]


@pytest.fixture(scope="module")
def trees(tmp_path_factory):
    return calibration_tree.write_all(tmp_path_factory.mktemp("cal"))


@pytest.mark.parametrize("model,static_only", [
    (calibration_tree.VIDEO_MODEL, False), (calibration_tree.THREED_MODEL, True)])
def test_worldscore_json_equals_the_official_byte_for_byte(trees, tmp_path, model, static_only):
    rec = recompute.recompute(trees / model / "worldscore_output", static_only)
    path = official_json.write_worldscore(tmp_path / "worldscore.json", rec.worldscore)
    assert path.read_text() == OFFICIAL[model]["worldscore_json"]


@pytest.mark.parametrize("model,static_only", [
    (calibration_tree.VIDEO_MODEL, False), (calibration_tree.THREED_MODEL, True)])
def test_pooled_values_equal_the_official_renormalised_files(trees, model, static_only):
    rec = recompute.recompute(trees / model / "worldscore_output", static_only)
    official = OFFICIAL[model]["renormalized"]
    checked = 0
    for results in rec.results.values():
        for r in results:
            if r.error:
                continue
            for (aspect, metric), value in r.pooled.items():
                assert value == official[r.instance.key][aspect][metric], (r.instance.key, metric)
                checked += 1
    assert checked > 30


def test_the_trees_exercise_each_rule(trees):
    rec = recompute.recompute(trees / calibration_tree.VIDEO_MODEL / "worldscore_output", False)
    by_key = {r.instance.key: r for rs in rec.results.values() for r in rs}
    s = "static/stylized/outdoor/forest/"
    assert not by_key[s + "s02"].instance.exists and not by_key[s + "s02"].renormalized
    assert set(by_key[s + "s02"].pooled.values()) == {0.9}  # stored values pooled
    assert by_key[s + "s04"].instance.exists and not by_key[s + "s04"].renormalized
    assert "has no score" in " ".join(by_key[s + "s04"].notes)
    assert "no such file" in by_key[s + "s03"].error
    assert "valid JSON" in by_key["static/photorealistic/indoor/bedroom/b03"].error
    assert ("content_alignment", "clip_score") not in by_key[
        "static/photorealistic/indoor/bedroom/b02"].pooled
    assert ("object_control", "object_detection") not in by_key[
        "dynamic/photorealistic/rigid/r01"].pooled
    assert recompute.stored_mismatches(rec.results)


def test_three_d_model_gets_zero_dynamic_and_point_seven_static(trees):
    rec = recompute.recompute(trees / calibration_tree.THREED_MODEL / "worldscore_output", True)
    ws = rec.worldscore
    assert [ws[a] for a in aspects.DYNAMIC_ASPECTS] == [0, 0, 0]
    assert all(type(ws[a]) is int for a in aspects.DYNAMIC_ASPECTS)  # json writes 0, not 0.0
    assert ws["WorldScore-Dynamic"] == round(np.mean(
        [ws[a] for a in aspects.STATIC_ASPECTS] + [0, 0, 0]).item(), 2)


def test_by_hand_absent_aspects_and_rounding():
    pools = aggregate.pool([
        {("object_control", "object_detection"): 0.5,
         ("subjective_quality", "clip_iqa+"): 0.2, ("subjective_quality", "clip_aesthetic"): 0.6},
        {("object_control", "object_detection"): 0.25},
    ])
    ws = aggregate.worldscore({aspects.STATIC: pools})
    assert ws["object_control"] == 37.5
    assert ws["subjective_quality"] == 40.0  # mean of the two metric means
    assert ws["camera_control"] == 0 and ws["motion_accuracy"] == 0
    assert ws["WorldScore-Static"] == round((37.5 + 40.0) / 7, 2)
    assert ws["WorldScore-Dynamic"] == round((37.5 + 40.0) / 10, 2)
    assert list(ws) == list(official_json.WORLDSCORE_KEYS)
    # Rounding happens per aspect, then again on the headline: 1/3 -> 33.33.
    ws = aggregate.worldscore({aspects.STATIC: {("object_control", "object_detection"): [1 / 3]}})
    assert ws["object_control"] == 33.33 and ws["WorldScore-Static"] == round(33.33 / 7, 2)


def test_a_dynamic_only_aspect_never_comes_from_static_instances():
    pools = {("motion_magnitude", "optical_flow"): [0.5]}
    assert aggregate.aspect_scores(pools, aspects.STATIC) == {}
    assert aggregate.aspect_scores(pools, aspects.DYNAMIC) == {"motion_magnitude": 50.0}
