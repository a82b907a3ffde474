"""{name}_eval_results.json as upstream writes it: the bytes of json.dump(indent=4) of the
dicts upstream builds (key order, bools, ints), and read back by the importer."""

import json

import pytest

from benchmarks.vbench import metric_specs
from benchmarks.vbench.results import aggregate as agg
from benchmarks.vbench.results import importer
from benchmarks.vbench.results import official_files
from benchmarks.vbench.results import results_testing as rt

ORDER = ("dynamic_degree", "spatial_relationship", "background_consistency",
         "appearance_style", "human_action", "imaging_quality", "object_class", "color")


def _results(dimensions):
    expected = rt.official_content(dimensions)
    results = [official_files.DimensionResult(d, expected[d][0], rt.rows_of(d, expected[d][1]))
               for d in dimensions]
    return expected, results


def test_bytes_equal_upstreams_save_json(tmp_path):
    expected, results = _results(ORDER)
    path = official_files.write_eval_results(tmp_path, "run1", results)
    assert path.name == "run1_eval_results.json"
    text = path.read_text(encoding="utf-8")
    assert text == json.dumps(expected, indent=4)
    assert not text.endswith("\n")
    data = json.loads(text)
    assert tuple(data) == ORDER                          # the order requested
    assert list(data["background_consistency"][1][0]) == [
        "video_path", "video_results", "video_sim", "cnt_per_video"]
    assert list(data["appearance_style"][1][0]) == [
        "video_path", "video_results", "frame_results", "cur_sim"]
    assert '"video_results": true' in text and '"video_results": false' in text
    assert '"cnt_per_video": 3\n' in text                # an int, not 3.0
    frames = data["spatial_relationship"][1][0]["frame_results"]
    assert [type(f) for f in frames[:3]] == [int, int, float]   # upstream's 0, 1, 0.1/IoU


def test_bool_column_must_be_0_or_1():
    row = agg.VideoRow("/v/x.mp4", {"dynamic_degree": 0.5}, {})
    with pytest.raises(ValueError, match="x.mp4 .dynamic_degree.: video_results 0.5 is not"):
        official_files.video_dict("dynamic_degree", row)


def test_non_finite_aggregate_and_missing_extras_refused():
    _, results = _results(["color"])
    bad = official_files.DimensionResult("color", float("nan"), results[0].rows)
    with pytest.raises(ValueError, match="color: aggregate nan is not finite"):
        official_files.eval_results([bad])
    row = agg.VideoRow("/v/x.mp4", {"scene": 1.0}, {"scene": {"frame_count": 16}})
    with pytest.raises(ValueError, match="x.mp4: scene has no 'success_frame_count'"):
        official_files.video_dict("scene", row)


def test_from_rows_leaves_out_a_dimension_without_videos():
    _, results = _results(["temporal_flickering"])
    rows = results[0].rows
    got, reasons = official_files.from_rows(["temporal_flickering", "color"], rows)
    assert [r.dimension for r in got] == ["temporal_flickering"]
    assert got[0].aggregate == agg.aggregate("temporal_flickering", rows)
    assert reasons == {"color": "color: no video has a value"}


def test_default_order_is_upstreams_full_dimension_list():
    assert set(official_files.DEFAULT_ORDER) == set(metric_specs.DIMENSIONS)
    assert official_files.DEFAULT_ORDER[-1] == "appearance_style"


def test_round_trip_through_the_importer(tmp_path):
    dims = metric_specs.DIMENSIONS
    expected, results = _results(dims)
    path = official_files.write_eval_results(tmp_path, "m", results)
    card = importer.import_results(path, "m").card
    values = {m.id: m for m in card.metrics}
    for d in dims:
        assert values[d].available and values[d].value == expected[d][0], d
        assert values[d].sample_count == len(rt.VIDEOS), d
    assert not [n for n in card.notes if "not the single-GPU" in n], list(card.notes)
    assert values["total_score"].available
    assert values["total_score"].value == values["cal_final_score_total"].value


def test_full_info_written_as_given(tmp_path):
    entries = [{"prompt_en": "a cat", "dimension": ["scene"], "video_list": []}]
    path = official_files.write_full_info(tmp_path, "m", entries)
    assert path.name == "m_full_info.json"
    assert path.read_text(encoding="utf-8") == json.dumps(entries, indent=4)
