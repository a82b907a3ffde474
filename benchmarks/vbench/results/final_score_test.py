"""final_score.py against (a) a numpy transcription of scripts/cal_final_score.py's
arithmetic written here from the script, and (b) the numbers the real script printed on
zips of results files (testdata/cal_final_score_official.json, 45e79ec)."""

import json
import pathlib

import numpy as np
import pytest

from benchmarks.vbench import metric_specs
from benchmarks.vbench.results import final_score

OFFICIAL = json.loads((pathlib.Path(__file__).parent / "testdata" /
                       "cal_final_score_official.json").read_text())

# constant.py:64-81 and DIM_WEIGHT, as arrays in TASK_INFO order (transcribed again here).
_TASKS = ["subject consistency", "background consistency", "temporal flickering",
          "motion smoothness", "dynamic degree", "aesthetic quality", "imaging quality",
          "object class", "multiple objects", "human action", "color",
          "spatial relationship", "scene", "appearance style", "temporal style",
          "overall consistency"]
_MIN = np.array([0.1462, 0.2615, 0.6293, 0.706, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.0009, 0, 0])
_MAX = np.array([1, 1, 1, 0.9975, 1, 1, 1, 1, 1, 1, 1, 1, 0.8222, 0.2855, 0.364, 0.364])
_WEIGHT = np.array([1, 1, 1, 1, 0.5] + [1] * 11)
_QUALITY = np.arange(16) < 7


def _transcription(upload):
    """cal_final_score.py on an `upload` dict keyed by its space-separated names."""
    x = np.array([upload.get(t, 0.0) for t in _TASKS], dtype=np.float64)
    norm = (x - _MIN) / (_MAX - _MIN) * _WEIGHT
    quality = norm[_QUALITY].sum() / _WEIGHT[_QUALITY].sum()
    semantic = norm[~_QUALITY].sum() / _WEIGHT[~_QUALITY].sum()
    return quality, semantic, (4 * quality + semantic) / 5


def _upload(case):
    """What cal_final_score.py's submission() builds: dicts read in the recorded
    os.listdir order, top level and one folder deep, '.'/'__' entries skipped."""
    files, upload = case["files"], {}
    for entry in case["listdir_order"]:
        if entry.startswith(".") or entry.startswith("__"):
            continue
        members = sorted(m for m in files if m.startswith(entry + "/")) or [entry]
        for member in members:
            content = files.get(member)
            if isinstance(content, dict):
                for key, value in content.items():
                    upload[key.replace("_", " ")] = value[0]
    return upload


def _dimensions(upload):
    return {d: upload[final_score.official_key(d)] for d in metric_specs.DIMENSIONS
            if final_score.official_key(d) in upload}


PRINTED = [name for name, case in OFFICIAL["cases"].items() if "printed" in case]


def test_orders_and_table_match_the_metric_table():
    assert set(final_score.QUALITY_ORDER) == set(metric_specs.QUALITY)
    assert set(final_score.SEMANTIC_ORDER) == set(metric_specs.SEMANTIC)
    assert set(final_score.NORMALISATION) == set(metric_specs.DIMENSIONS)
    assert [final_score.official_key(d) for d in final_score.NORMALISATION] == _TASKS


@pytest.mark.parametrize("name", PRINTED)
def test_cal_final_score_equals_the_printed_numbers(name):
    case = OFFICIAL["cases"][name]
    scores = final_score.cal_final_score(_dimensions(_upload(case)))
    printed = case["printed"]
    # the script's own arithmetic, to the last bit
    assert scores.as_dict() == printed, name
    np.testing.assert_allclose(_transcription(_upload(case)),
                               [printed["quality"], printed["semantic"], printed["total"]],
                               rtol=1e-13)


def test_absent_dimensions_count_as_zero_and_go_negative():
    case = OFFICIAL["cases"]["quality_absent"]
    dims = _dimensions(_upload(case))
    assert "temporal_flickering" not in dims
    assert case["printed"]["quality"] < 0     # the official script printed it negative
    scores = final_score.cal_final_score(dims)
    assert scores.missing["total"] == ("subject_consistency", "temporal_flickering",
                                       "motion_smoothness")
    # (0 - Min) / (Max - Min): -1.6976 and -2.4220 (spec §7 rounds the first to -1.696)
    assert final_score.normalised("temporal_flickering", 0) == -0.6293 / (1.0 - 0.6293)
    assert final_score.normalised("motion_smoothness", 0) == -0.706 / (0.9975 - 0.706)


def test_ours_needs_every_dimension_of_a_score():
    case = OFFICIAL["cases"]["computed10"]
    dims = _dimensions(_upload(case))
    ours = final_score.ours(dims)
    printed = case["printed"]
    assert ours.quality == printed["quality"]   # all 7 quality dimensions are there
    assert ours.semantic is None and ours.total is None
    assert ours.missing["semantic"] == ("object_class", "multiple_objects", "human_action",
                                        "color", "spatial_relationship", "scene")
    assert ours.missing["total"] == ours.missing["semantic"]
    full = final_score.ours(_dimensions(_upload(OFFICIAL["cases"]["all16_single"])))
    assert full.as_dict() == OFFICIAL["cases"]["all16_single"]["printed"]
    assert not full.missing


def test_no_clipping():
    # all16_single has motion_smoothness 0.65 < Min 0.706: its term is negative.
    dims = _dimensions(_upload(OFFICIAL["cases"]["all16_single"]))
    assert dims["motion_smoothness"] == 0.65
    assert final_score.normalised("motion_smoothness", 0.65) < 0
    assert final_score.normalised("scene", 0.9) > 1
    assert final_score.normalised("dynamic_degree", 1.0) == 0.5


def test_quality_sums_in_constant_py_order():
    # QUALITY_LIST puts dynamic_degree last; the sum is taken in that order.
    dims = _dimensions(_upload(OFFICIAL["cases"]["all16_single"]))
    terms = [final_score.normalised(d, dims[d]) for d in final_score.QUALITY_ORDER]
    assert final_score.ours(dims).quality == sum(terms) / 6.5


def test_the_script_fails_when_it_reads_no_entry():
    # Absent dimensions are filled inside the file loop (cal_final_score.py:37-39): with
    # every entry skipped nothing is filled and the script raises (the importer refuses).
    case = OFFICIAL["cases"]["only_skipped"]
    assert case["returncode"] == 1 and case["error"].startswith("KeyError")
