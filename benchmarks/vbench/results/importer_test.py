"""The importer on files shaped as upstream writes them: one eval_results.json, a folder
of them, the zip cal_final_score.py reads (dot-files and __MACOSX skipped as it skips
them); its refusals; import_main's flags."""

import json
import pathlib
import zipfile

import pytest

from benchmarks.common import bad_import_values
from benchmarks.common.errors import InputError
from benchmarks.vbench import metric_specs
from benchmarks.vbench.results import final_score
from benchmarks.vbench.results import importer
from benchmarks.vbench.results import results_testing as rt
from proto import scorecard_pb2

OFFICIAL = json.loads((pathlib.Path(__file__).parent / "testdata" /
                       "cal_final_score_official.json").read_text())
ALL = metric_specs.DIMENSIONS


def _metrics(card):
    return {m.id: m for m in card.metrics}


def _zip(path, files):
    with zipfile.ZipFile(path, "w") as z:
        for member, data in files.items():
            z.writestr(member, data if isinstance(data, str) else json.dumps(data, indent=4))
    return path


def test_single_file_rows_and_values(tmp_path):
    content = rt.official_content(ALL)
    imported = importer.import_results(rt.write(tmp_path / "m_eval_results.json", content),
                                       "m")
    card, samples = imported.card, {s.sample_id: s for s in imported.samples}
    assert set(samples) == set(rt.VIDEOS)
    row = samples["a cat-0.mp4"]
    assert row.split == "generated"
    assert row.metrics["dynamic_degree"] == 1.0 and samples["a cat-1.mp4"].metrics[
        "dynamic_degree"] == 0.0
    assert row.metrics["imaging_quality"] == 55.0          # 0-100 per video, as written
    assert json.loads(row.diagnostics["vbench_extras/object_class"]) == {
        "success_frame_count": 10, "frame_count": 16}
    assert row.metrics["background_consistency:den"] == 3
    metrics = _metrics(card)
    assert metrics["imaging_quality"].value == content["imaging_quality"][0]
    assert card.verification.scope == scorecard_pb2.IMPORTED_OFFICIAL_RESULTS
    assert list(imported.raw_table_metrics) == list(ALL)
    cal = final_score.cal_final_score({d: content[d][0] for d in ALL})
    assert metrics["cal_final_score_total"].value == cal.total
    assert metrics["total_score"].value == cal.total


@pytest.mark.parametrize("name", ["all16_single", "computed10", "quality_absent",
                                  "folder_of_several", "conflict"])
def test_zip_gives_the_printed_numbers(tmp_path, name):
    case = OFFICIAL["cases"][name]
    card = importer.import_results(_zip(tmp_path / f"{name}.zip", case["files"]), "m").card
    metrics = _metrics(card)
    got = {g: metrics[f"cal_final_score_{g}"].value for g in ("quality", "semantic", "total")}
    if name != "conflict":
        assert got == case["printed"], name
        return
    # Both files give subject and background: the last in os.listdir order wins.
    note = next(n for n in card.notes if n.startswith("subject_consistency is in 2 files"))
    last = note.split(": ", 1)[1].split("; the last")[0].split(", ")[-1].split(" (")[0]
    winner = last.split(":", 1)[1]
    assert metrics["subject_consistency"].value == case["files"][winner][
        "subject_consistency"][0]
    if winner == case["listdir_order"][-1]:
        assert got == case["printed"]


def test_folder_skips_dot_files_and_macosx_and_ignores_lists(tmp_path):
    case = OFFICIAL["cases"]["folder_of_several"]
    folder = tmp_path / "unzipped"
    with zipfile.ZipFile(_zip(tmp_path / "f.zip", case["files"])) as z:
        z.extractall(folder)
    card = importer.import_results(folder, "m").card
    notes = "\n".join(card.notes)
    assert "skipped as cal_final_score.py skips them" in notes
    assert ".DS_Store" in notes and "__MACOSX" in notes
    assert "modelD_full_info.json: not a JSON object, ignored" in notes
    metrics = _metrics(card)
    assert not metrics["appearance_style"].available
    assert "counts it as 0" in metrics["appearance_style"].unavailable_reason
    assert not metrics["total_score"].available
    assert "appearance_style" in metrics["total_score"].unavailable_reason
    assert metrics["cal_final_score_total"].value == case["printed"]["total"]


def test_only_skipped_entries_are_refused(tmp_path):
    # cal_final_score.py raises KeyError there (testdata: only_skipped).
    path = _zip(tmp_path / "s.zip", OFFICIAL["cases"]["only_skipped"]["files"])
    with pytest.raises(InputError, match="no VBench dimension in 0 JSON file"):
        importer.import_results(path, "m")


def test_value_outside_range_refused_naming_file_dimension_video(tmp_path):
    content = rt.official_content(ALL)
    content["temporal_flickering"][1][1]["video_results"] = 1.5
    content["subject_consistency"][1][2]["video_results"] = -0.2
    path = rt.write(tmp_path / "m_eval_results.json", content)
    imported = importer.import_results(path, "m")
    rows = {s.sample_id: s for s in imported.samples}
    reason = rows["a cat-1.mp4"].unavailable["temporal_flickering"]
    assert str(path) in reason and "temporal_flickering video /data/videos/a cat-1.mp4" in reason
    assert "outside its official range" in reason
    metrics = _metrics(imported.card)
    flicker = metrics["temporal_flickering"]
    assert flicker.available and flicker.sample_count == 2
    assert list(flicker.missing_sample_ids) == ["generated/a cat-1.mp4"]
    # subject: the file lacks the frame-pair counts its aggregate weighs by
    assert not metrics["subject_consistency"].available
    assert "subject_consistency" in metrics["subject_consistency"].unavailable_reason
    assert not metrics["total_score"].available
    # cal_final_score.py reads only the aggregates, which passed: its numbers stand
    assert metrics["cal_final_score_total"].available


def test_refused_aggregate_stops_the_cal_final_score_numbers(tmp_path):
    content = rt.official_content(ALL)
    content["aesthetic_quality"][0] = float("nan")
    card = importer.import_results(rt.write(tmp_path / "m_eval_results.json", content),
                                   "m").card
    metrics = _metrics(card)
    assert metrics["aesthetic_quality"].available      # the single-GPU mean of its rows
    assert not metrics["cal_final_score_total"].available
    assert "aesthetic_quality" in metrics["cal_final_score_total"].unavailable_reason


def test_torchrun_appearance_is_named(tmp_path):
    content = rt.official_content(["appearance_style"])
    dicts = content["appearance_style"][1]
    content["appearance_style"][0] = sum(x["cur_sim"] for x in dicts) / len(dicts)
    card = importer.import_results(rt.write(tmp_path / "m_eval_results.json", content),
                                   "m").card
    assert any("torchrun value" in n for n in card.notes), list(card.notes)


@pytest.mark.parametrize("text,fragment", [
    ("{not json", "JSONDecodeError"),
    ("[1, 2]", "found list"),
    ('{"color": 0.5}', "color: [aggregate, [per-video dicts]]"),
    ('{"color": [0.5, [{"video_results": 0.5}]]}', "per-video dicts with video_path"),
    ('{"color": [0.5, [{"video_path": "a/x.mp4", "video_results": 0.5}, '
     '{"video_path": "b/x.mp4", "video_results": 0.5}]]}', "x.mp4 twice"),
    ('{"i2v_subject": [0.5, []]}', "no VBench dimension"),
])
def test_malformed_files_are_named(tmp_path, text, fragment):
    path = tmp_path / "bad_eval_results.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as e:
        importer.import_results(path, "m")
    assert str(path) in str(e.value) and fragment in str(e.value)


def _write_flicker(folder, value):
    content = rt.official_content(["temporal_flickering", "aesthetic_quality"])
    if value is not None:
        content["temporal_flickering"][1][1]["video_results"] = value
    rt.write(folder / "m_eval_results.json", content)


def _load(folder):
    imported = importer.import_results(folder / "m_eval_results.json", "m")
    return imported.card, imported.samples


IMPORT = bad_import_values.ImportSuite(
    _write_flicker, _load, "temporal_flickering", ("generated", "a cat-1.mp4"), (0.0, 1.0))
import_harness, test_import_value = bad_import_values.pytest_tests(IMPORT)
