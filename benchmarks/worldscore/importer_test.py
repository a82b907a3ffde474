"""The importer on trees and worldscore.json files shaped exactly like the official ones:
worldscore.json as the official run_evaluate writes it, per-instance rows, error rows
naming the file, coverage against 2,000 + 1,000."""

import json
import os
import pathlib
import shutil
import subprocess

import pytest

from benchmarks.common.errors import InputError
from tools.fixtures import worldscore_calibration_tree as calibration_tree
from benchmarks.worldscore import importer
from benchmarks.worldscore import official_json
from proto import scorecard_pb2
from tools.fixtures import worldscore_tree as tree

OFFICIAL = json.loads((pathlib.Path(__file__).parent / "calibration"
                       / "official_aggregation.json").read_text())["models"]
VIDEO, THREED = calibration_tree.VIDEO_MODEL, calibration_tree.THREED_MODEL


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return calibration_tree.write_all(tmp_path_factory.mktemp("cal"))


def _metric(card, metric_id):
    return next(m for m in card.metrics if m.id == metric_id)


def _rows(imported):
    return {s.sample_id: s for s in imported.samples}


def test_tree_import_values_rows_and_coverage(base, tmp_path):
    imported = importer.from_tree(base / VIDEO / "worldscore_output", VIDEO, False)
    card = importer.write_outputs(tmp_path, imported)
    assert (tmp_path / "worldscore.json").read_text() == OFFICIAL[VIDEO]["worldscore_json"]
    official = json.loads(OFFICIAL[VIDEO]["worldscore_json"])
    for key, value in official.items():
        assert _metric(card, key).value == value and _metric(card, key).available, key
    assert _metric(card, "object_control").sample_count == 6  # s03, b03 have no usable file
    assert card.verification.scope == scorecard_pb2.IMPORTED_OFFICIAL_RESULTS
    assert not card.verification.leaderboard_eligible
    assert card.coverage.expected == 3000 and card.coverage.evaluated == 8
    assert "ids unknown without --data_root" in card.coverage.expected_source
    rows = _rows(imported)
    assert len(rows) == 11
    s = "static/stylized/outdoor/forest/"
    assert "s03/evaluation.json: expected the instance's evaluation.json" in rows[s + "s03"].error
    assert "b03/evaluation.json: expected a WorldScore evaluation.json (valid JSON)" in rows[
        "static/photorealistic/indoor/bedroom/b03"].error
    assert "s02/frames: expected at least 4" in rows[s + "s02"].error
    assert rows[s + "s02"].diagnostics[importer.import_samples.POOLED_ANYWAY].startswith("yes")
    b02 = rows["static/photorealistic/indoor/bedroom/b02"]
    assert b02.unavailable["content_alignment.clip_score"].startswith("as in the official code")
    assert b02.metrics["raw:camera_control.camera_error:rotation_error_deg"] == 14.9
    assert any("stored score_normalized values differ" in n for n in card.notes)
    lines = (tmp_path / "per_sample_scores.jsonl").read_text().splitlines()
    assert len(lines) == 11 and (tmp_path / "raw_metric_table.jsonl").is_file()


def test_three_d_model(base):
    card = importer.from_tree(base / THREED / "worldscore_output", THREED, True).card
    assert _metric(card, "WorldScore-Dynamic").value == json.loads(
        OFFICIAL[THREED]["worldscore_json"])["WorldScore-Dynamic"]
    dyn = _metric(card, "motion_smoothness")
    assert not dyn.available and dyn.unavailable_reason.startswith("3D model")
    assert card.coverage.expected == 2000


def test_dataset_cross_check_both_ways(base, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(base / VIDEO / "worldscore_output", out)
    shutil.rmtree(out / "dynamic/stylized/fluid/f01")
    extra = tree.static_entry("photorealistic", "indoor", "attic", "x01")
    tree.write_instance(out, extra, evaluation={
        "object_control": {"object_detection": {"score": 1.0, "score_normalized": 1.0}}})
    imported = importer.from_tree(out, VIDEO, False, base / "data")
    rows, card = _rows(imported), imported.card
    missing = rows["dynamic/stylized/fluid/f01"]
    assert "f01: expected the generated folder of entry 1 of" in missing.error
    assert "dynamic.json" in missing.error
    assert card.coverage.missing_sample_ids == ["dynamic/stylized/fluid/f01"]
    assert card.coverage.expected == 11
    # the gate's count of the official data (gate.assess_import, as a run's gate)
    assert any(b.reason == scorecard_pb2.NOT_OFFICIAL_DATA and "static.json has 8 entries, "
               "not the official 2000" in b.detail for b in card.verification.blocking)
    x01 = rows["static/photorealistic/indoor/attic/x01"]
    assert "found no entry for it" in x01.error and x01.metrics  # pooled, as officially
    assert "static.json" in x01.error


def test_missing_dynamic_folder_of_a_video_model(base, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(base / VIDEO / "worldscore_output" / "static", out / "static")
    card = importer.from_tree(out, VIDEO, False).card
    ma = _metric(card, "motion_accuracy")
    assert not ma.available and "no dynamic/ folder" in ma.unavailable_reason
    assert any("dynamic: no such folder" in n for n in card.notes)


def _edit(path, change):
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=4))  # json.dump writes NaN, Infinity as is


def test_a_nan_raw_score_is_a_per_instance_error_not_a_renormalised_zero(base, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(base / VIDEO / "worldscore_output", out)
    bed, beach = "static/photorealistic/indoor/bedroom/b01", "static/photorealistic/outdoor/beach/o01"
    forest = "static/stylized/outdoor/forest/s02"  # data_exists rejects it: stored value pooled
    reproj, camera, detect = ("3d_consistency.reprojection_error", "camera_control.camera_error",
                              "object_control.object_detection")
    before = _rows(importer.from_tree(out, VIDEO, False))
    _edit(out / bed / "evaluation.json", lambda d: d["3d_consistency"]["reprojection_error"]
          .update(score=float("nan")))
    _edit(out / beach / "evaluation.json", lambda d: d["camera_control"]["camera_error"]
          .update(score=[float("inf"), 0.0]))
    _edit(out / forest / "evaluation.json", lambda d: d["object_control"]["object_detection"]
          .update(score_normalized=1.7))
    assert "NaN" in (out / bed / "evaluation.json").read_text()
    imported = importer.from_tree(out, VIDEO, False)
    card, rows = imported.card, _rows(imported)
    for metric_id, bad in ((reproj, bed), (camera, beach), (detect, forest)):
        kept = [r.metrics[metric_id] for key, r in before.items()
                if metric_id in r.metrics and key != bad]  # error rows are pooled too
        result = _metric(card, metric_id)
        assert result.value == pytest.approx(sum(kept) / len(kept), abs=1e-12), metric_id
        assert result.sample_count == len(kept) and metric_id not in rows[bad].metrics
        assert list(result.missing_sample_ids) == [f"static/{bad}"]  # split/sample id
    assert rows[bed].unavailable[reproj] == (
        f"{out / bed / 'evaluation.json'}: {reproj} score nan is not a finite number")
    assert "camera_error score inf is not a finite number" in rows[beach].unavailable[camera]
    assert "object_detection 1.7 is outside its official range [0, 1]" in rows[
        forest].unavailable[detect]
    note = next(n for n in card.notes if n.startswith("3 imported values are not finite"))
    assert f"{out / bed / 'evaluation.json'} {reproj} score=nan" in note
    assert scorecard_pb2.INCOMPLETE_METRIC_COVERAGE in {
        b.reason for b in card.verification.blocking}


def test_worldscore_json_import(tmp_path):
    path = tmp_path / "worldscore.json"
    path.write_text(OFFICIAL[VIDEO]["worldscore_json"])
    imported = importer.from_worldscore_json(path, VIDEO, False)
    card = importer.write_outputs(tmp_path / "out", imported)
    assert (tmp_path / "out" / "worldscore.json").read_text() == path.read_text()
    assert _metric(card, "WorldScore-Static").value == 52.35
    assert not _metric(card, "object_control.object_detection").available
    assert not imported.samples and not any("is " in n for n in card.notes[1:])
    # Voyager's leaderboard row (spec §7): a Static that is not its aspects' mean is noted.
    data = json.loads(path.read_text())
    data["WorldScore-Static"] = 60.0
    path.write_text(json.dumps(data, indent=4))
    card = importer.from_worldscore_json(path, VIDEO, False).card
    assert any("WorldScore-Static is 60.0, the official formula" in n for n in card.notes)


def test_not_a_tree(tmp_path):
    with pytest.raises(InputError, match="holding static/ and dynamic/"):
        importer.from_tree(tmp_path, VIDEO, False)


def _binary():
    path = (pathlib.Path(os.environ["TEST_SRCDIR"]) / "worldeval" / "benchmarks"
            / "worldscore" / "import")
    assert path.is_file(), path
    return str(path)


def test_binary_end_to_end(base, tmp_path):
    done = subprocess.run([_binary(), f"--generated_root={base / THREED / 'worldscore_output'}",
                           f"--output_dir={tmp_path}", f"--model_name={THREED}"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "IMPORTED_OFFICIAL_RESULTS" in done.stdout
    assert (tmp_path / official_json.WORLDSCORE_JSON).read_text() == OFFICIAL[THREED][
        "worldscore_json"]


def test_binary_bad_input_exits_2_naming_the_file(tmp_path):
    bad = tmp_path / "worldscore.json"
    bad.write_text("[]")
    done = subprocess.run([_binary(), f"--worldscore_json={bad}", f"--output_dir={tmp_path}/o"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2, done.stderr
    assert f"{bad}: expected a JSON object of aspect scores" in done.stderr
