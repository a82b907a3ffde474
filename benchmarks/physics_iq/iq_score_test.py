"""iq_score.py against the numbers code/calculate_iq_score.py (e457754) returned on the same
synthetic CSVs (testdata/iq_score_official.json, compared with ==), and each quirk of
spec §9 / §11.7 pinned by a test that fails if it is "fixed"."""

import hashlib
import json
import pathlib

import pytest

from benchmarks.physics_iq import iq_score, score_testing
from benchmarks.physics_iq.csv_file import KEYS, LIST_KEYS, VIEWS, ScenarioRow
from benchmarks.physics_iq.iq_score import ScoreError, calculate_iq_score

OFFICIAL = json.loads((pathlib.Path(__file__).parent / "testdata" /
                       "iq_score_official.json").read_text())
CASES = {case["recipe"]["name"]: case for case in OFFICIAL["cases"]}


@pytest.mark.parametrize("name", sorted(CASES))
def test_equals_upstream_bit_for_bit(name, tmp_path):
    case = CASES[name]
    text = score_testing.csv_text(case["recipe"], tmp_path)
    assert hashlib.sha256(text.encode()).hexdigest() == case["csv_sha256"]
    got = calculate_iq_score(score_testing.dropped_rows(case["recipe"]))
    assert got.score == case["score"]
    assert got.physical_variance == case["physical_variance"]


def test_the_official_cases_cover_both_clamps_and_the_interior():
    assert CASES["high"]["score"] == 100.0 and CASES["low"]["score"] == 0.0
    assert 0 < CASES["mid66"]["score"] < 100
    high = calculate_iq_score(score_testing.rows(CASES["high"]["recipe"]))
    low = calculate_iq_score(score_testing.rows(CASES["low"]["recipe"]))
    assert high.raw > 100 and low.raw < 0


def _rows(n=1, frames=3, **values):
    """n scenarios, every view alike: per-frame lists of `frames` values, scalars; keys
    given in `values` override the defaults (everything 0.5, MSEs 0.01)."""
    base = {}
    for key in KEYS:
        default = 0.01 if key.endswith("mse") else 0.5
        value = values.get(key, default)
        base[key] = [value] * frames if key in LIST_KEYS and not isinstance(value, list) else value
    return [ScenarioRow(f"s{i}.mp4", {view: dict(base) for view in VIEWS}) for i in range(n)]


def _drop(rows, key, views):
    for row in rows:
        for view in views:
            del row.views[view][key]
    return rows


def test_per_frame_values_are_rounded_to_4_dp_before_the_means():
    # 4e-05 rounds to 0.0 frame by frame: the model MSE is exactly 0, not 4e-05.
    got = calculate_iq_score(_rows(v1_mse=4e-05, spatiotemporal_iou_v1=0.99996))
    assert got.mse == 0.0
    assert got.spatiotemporal_iou == 1.0


def test_a_list_cell_string_is_read_with_upstreams_regex():
    assert iq_score.frame_values("[1.0, 0.123456, 1e-05, nan, 0.00005]") == [
        1.0, 0.1235, 0.0, 0.0001]  # `nan` is silently skipped, as upstream's regex does
    with pytest.raises(ScoreError):
        iq_score.frame_values("0.5, 0.25")


def test_pv_spatial_is_rounded_to_5_dp_the_other_variances_to_4():
    got = calculate_iq_score(_rows(variance_spatial=0.123456, variance_weighted_spatial=0.123456,
                                   variance_mse=[0.123456] * 3,
                                   variance_spatiotemporal_iou=0.123456))
    assert got.pv_spatial_iou == 0.12346
    assert got.pv_weighted_spatial_iou == 0.1235
    assert got.pv_mse == 0.1235
    assert got.pv_spatiotemporal_iou == 0.1235


def test_variances_are_rounded_with_numpys_round_not_pythons():
    # Upstream rounds np.float64 values: round(np.float64(0.500005), 5) is 0.5 where
    # Python's correctly rounded round(0.500005, 5) is 0.50001 (and 0.01015 -> 0.0102 vs
    # 0.0101 at 4 dp). One view only, so the mean over views is the value itself.
    rows = _rows(variance_spatial=0.500005, variance_weighted_spatial=0.01015)
    rows = _drop(_drop(rows, "variance_spatial", VIEWS[1:]), "variance_weighted_spatial",
                 VIEWS[1:])
    got = calculate_iq_score(rows)
    assert round(0.500005, 5) == 0.50001 and got.pv_spatial_iou == 0.5
    assert round(0.01015, 4) == 0.0101 and got.pv_weighted_spatial_iou == 0.0102


def test_components_are_not_clipped_so_a_ratio_above_1_offsets_others():
    # ST/pvST = 2, SP/pvSP = WS/pvWS = 0.25, MSE = pvMSE: (2 + 0.25 + 0.25)/3 = 0.8333...
    got = calculate_iq_score(_rows(spatiotemporal_iou_v1=1.0, variance_spatiotemporal_iou=0.5,
                                   spatial_iou_v1=0.125, weighted_spatial_iou_v1=0.125))
    assert got.score == 83.33  # clipping ST to 1 would give 50.0


def test_clamped_to_0_100_then_rounded_to_2_dp():
    assert calculate_iq_score(_rows(spatial_iou_v1=0.5006)).score == 100.0  # raw 100.04
    assert calculate_iq_score(_rows(v1_mse=2.0)).score == 0.0
    got = calculate_iq_score(_rows(spatial_iou_v1=0.49))
    assert got.raw == pytest.approx(99.3333333, abs=1e-6) and got.score == 99.33


def test_the_second_return_value():
    got = calculate_iq_score(_rows(variance_mse=0.01, variance_spatial=0.4,
                                   variance_weighted_spatial=0.3,
                                   variance_spatiotemporal_iou=0.2))
    assert got.physical_variance == round(0.2 + 0.4 + 0.3 - 0.01, 4) == 0.89


def test_a_missing_variance_view_column_is_skipped_in_the_variance_mean():
    rows = _drop(_rows(variance_spatial=0.5), "variance_spatial", ["perspective-left"])
    rows[0].views["perspective-center"]["variance_spatial"] = 0.25
    rows[0].views["perspective-right"]["variance_spatial"] = 0.75
    # mean over the two present views only: (0.25 + 0.75)/2, not (0 + 0.25 + 0.75)/3
    assert calculate_iq_score(rows).pv_spatial_iou == 0.5


def test_no_view_column_at_all_or_a_partial_column_is_an_error_not_nan():
    with pytest.raises(ScoreError, match="no variance_mse_<view> column"):
        calculate_iq_score(_drop(_rows(), "variance_mse", VIEWS))
    with pytest.raises(ScoreError, match="some rows only"):
        calculate_iq_score(_drop(_rows(n=2)[:1], "variance_mse", VIEWS[:1]) + _rows())
    with pytest.raises(ScoreError, match="v1_mse_perspective-left missing"):
        calculate_iq_score(_drop(_rows(), "v1_mse", VIEWS[:1]))
    with pytest.raises(ScoreError, match="no scenario row"):
        calculate_iq_score([])
