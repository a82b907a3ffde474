"""verified_score.py against what physiq/ (main@023e069) returned on the same synthetic CSVs
(testdata/verified_score_official.json: IQTable.get_output_dict, final_score_origround and
aggregate_runs_from_csvs.main's pivot, all compared with ==), and the Verified quirks of
spec §10 / §11.8 pinned."""

import hashlib
import json
import math
import pathlib

import pytest

from benchmarks.physics_iq import csv_file, iq_score, score_testing, verified_score
from benchmarks.physics_iq.csv_file import KEYS, LIST_KEYS, VIEWS, ScenarioRow
from benchmarks.physics_iq.iq_score import ScoreError

OFFICIAL = json.loads((pathlib.Path(__file__).parent / "testdata" /
                       "verified_score_official.json").read_text())
CASES = {case["recipe"]["name"]: case for case in OFFICIAL["cases"]}
RUNS = {name: score_testing.dropped_rows(case["recipe"]) for name, case in CASES.items()}


def _number(value):
    return float(value) if isinstance(value, str) else value


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if "error" not in c))
def test_metrics_json_equals_upstream_bit_for_bit(name, tmp_path):
    case = CASES[name]
    text = score_testing.csv_text(case["recipe"], tmp_path)
    assert hashlib.sha256(text.encode()).hexdigest() == case["csv_sha256"]
    got = verified_score.metrics_json(RUNS[name])
    expected = {k: _number(v) for k, v in case["output_dict"].items()}
    expected["final_score_origround"] = case["final_score_origround"]
    assert list(got) == list(expected)  # upstream's key order too
    assert got == expected


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if "error" in c))
def test_what_upstream_refuses_is_refused(name):
    # varlen: frame counts differ across scenarios (upstream: ValueError from np.array);
    # missing_view: a variance column absent (upstream: KeyError).
    with pytest.raises(ScoreError):
        verified_score.output_dict(RUNS[name])


@pytest.mark.parametrize("entry", OFFICIAL["aggregate"], ids=lambda e: "+".join(e["runs"]))
@pytest.mark.parametrize("score_type", ["verified", "original"])
def test_aggregate_runs_equals_upstream(entry, score_type):
    outputs = [verified_score.output_dict(RUNS[name]) for name in entry["runs"]]
    expected = entry[score_type]
    if "error" in expected:
        with pytest.raises(ValueError, match="5 runs given"):
            verified_score.aggregate_runs(outputs, score_type)
        return
    got = verified_score.aggregate_runs(outputs, score_type)
    assert list(got) == list(expected)
    for key, (mean, std) in expected.items():
        assert got[key][0] == mean
        assert got[key][1] == (None if std == "nan" else std)


def test_reading_scalars_as_pandas_2_does_matters(monkeypatch):
    # With correctly rounded floats (pandas' 17th digit kept) some outputs move by an ulp.
    monkeypatch.setattr(verified_score, "upstream_scalar", float)
    got = verified_score.output_dict(RUNS["one_frame"])
    assert got["final_score_orig"] != _number(CASES["one_frame"]["output_dict"]["final_score_orig"])


def _rows(n=2, frames=2, **values):
    base = {}
    for key in KEYS:
        default = 0.01 if key.endswith("mse") else 0.5
        value = values.get(key, default)
        base[key] = [value] * frames if key in LIST_KEYS else value
    return [ScenarioRow(f"s{i}.mp4", {view: dict(base) for view in VIEWS}) for i in range(n)]


def test_components_use_eps_and_the_inverted_mse_ratio_and_are_clipped():
    got = verified_score.output_dict(_rows(
        spatial_iou_v1=0.0, variance_spatial=0.0,            # 0/(0 + 1e-8) = 0, not NaN
        weighted_spatial_iou_v1=0.9, variance_weighted_spatial=0.3,  # ratio 3, clipped to 1
        spatiotemporal_iou_v1=0.25,                          # 0.25/(0.5 + 1e-8)
        v1_mse=0.02, variance_mse=0.01))                     # (0.02/(0.01 + 1e-8))**-1
    def over_rows(x):  # the mean over the 2 x 3 (scenario, view) rows of a constant
        return sum([x] * 6) / 6

    st, mse = 0.25 / (0.5 + 1e-8), (0.02 / (0.01 + 1e-8)) ** -1
    assert got["score_spatial_view"] == 0.0
    assert got["score_weighted_spatial_view"] == 1.0
    assert got["score_spatiotemporal_view"] == over_rows(st)
    assert got["score_mse_view"] == over_rows(mse)
    assert over_rows(mse) != over_rows(0.01 / 0.02)  # eps inside, then inverted
    assert got["final_score_view"] == over_rows((((0.0 + 1.0) + st) + mse) / 4)
    assert math.isnan(got["score_spatial"])  # the original-style score has no eps: 0/0


def test_a_zero_model_mse_gives_inf_which_clips_to_1():
    got = verified_score.output_dict(_rows(v1_mse=0.0))
    assert got["score_mse_view"] == 1.0


def test_original_components_are_unclipped_stable_clips_each():
    got = verified_score.output_dict(_rows(spatiotemporal_iou_v1=1.0,  # ST ratio 2
                                           spatial_iou_v1=0.125, weighted_spatial_iou_v1=0.125))
    assert got["score_spatiotemporal"] == 2.0 and got["score_mse"] == 0.0
    assert got["final_score_raw"] == (2.0 + 0.25 + 0.25) / 3
    assert got["final_score_orig"] == got["final_score_raw"]      # within [0, 1]: unclipped
    assert got["final_score_stable"] == (1.0 + 0.25 + 0.25) / 3   # ST clipped to 1 first
    assert got["variance_spatial"] == 0.5 and got["variance_mse"] == 0.01


def test_no_rounding_of_the_variances_unlike_the_original():
    rows = _rows(variance_spatial=0.123456)
    assert verified_score.output_dict(rows)["variance_spatial"] == 0.123456
    assert iq_score.calculate_iq_score(rows).pv_spatial_iou == 0.12346


def test_one_run_has_no_std_and_the_table_cell():
    out = verified_score.output_dict(_rows())
    (mean, std), = [verified_score.aggregate_runs([out])["final_score_view"]]
    assert std is None and mean == out["final_score_view"] * 100
    assert verified_score.format_mean_std(39.54, None) == "$39.5$"
    assert verified_score.format_mean_std(39.54, 0.76) == "$39.5 \\pm 0.8$"
    two = verified_score.aggregate_runs([{**out, "final_score_view": 0.25},
                                         {**out, "final_score_view": 0.75}])
    assert two["final_score_view"] == (50.0, math.sqrt(0.125) * 100)  # ddof = 1


def test_zero_or_five_runs_are_refused():
    for n in (0, 5):
        with pytest.raises(ValueError):
            verified_score.aggregate_runs([{}] * n)


def test_metrics_json_text_is_json_dump_indent_4():
    text = verified_score.metrics_json_text({"a": 0.1, "b": float("nan")})
    assert text == '{\n    "a": 0.1,\n    "b": NaN\n}'


def test_scalar_cells_given_as_text_are_read_like_pandas():
    rows = _rows()
    rows[0].views["perspective-left"]["spatial_iou_v1"] = "0.25891675029296335"
    got = verified_score.output_dict(rows)
    rows[0].views["perspective-left"]["spatial_iou_v1"] = csv_file.pandas_float(
        "0.25891675029296335")
    assert verified_score.output_dict(rows) == got
