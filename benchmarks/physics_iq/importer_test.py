"""The metrics-CSV importer (importer.py) on upstream's own CSVs (testdata/official_tree:
e457754's run_physics_iq.py on //tools/fixtures:physics_iq_tree, README.md there): the
recomputed score equals the score upstream's calculate_iq_score printed, with ==; the
rows, coverage, blockers and the CSV copied byte for byte; and its refusals (a malformed
cell, a missing column, NaN and out-of-range values, a scenario the descriptions lack),
each naming file, row and column, exit 2 through import_main."""

import csv
import json
import math
import pathlib

import pytest
from absl import flags

from benchmarks.common import app_main
from benchmarks.common import bad_inputs
from benchmarks.common.errors import InputError
from benchmarks.physics_iq import csv_file, import_main, importer, iq_score, metric_specs
from proto import scorecard_pb2
from tools.fixtures import physics_iq_tree

OFFICIAL = pathlib.Path(__file__).parent / "testdata" / "official_tree"
SCORES = json.loads((OFFICIAL / "official_scores.json").read_text())["scores"]
MODELS = ("follows", "diverges", "freezes")
VIEWS = csv_file.VIEWS


def _reasons(card):
    return [b.reason for b in card.verification.blocking]


def _by_id(card):
    return {m.id: m for m in card.metrics}


@pytest.mark.parametrize("model", MODELS)
def test_the_score_is_upstreams_printed_score(model):
    imported = importer.import_csv(OFFICIAL / f"{model}.csv", model)
    metrics = _by_id(imported.card)
    assert list(metrics) == list(metric_specs.TABLE.ids)
    assert metrics["physics_iq_score"].value == SCORES[model]["calculate_iq_score"][0]
    ours = iq_score.calculate_iq_score(csv_file.read_csv(OFFICIAL / f"{model}.csv"))
    assert ours.physical_variance == SCORES[model]["calculate_iq_score"][1]
    for metric in ("spatiotemporal_iou", "spatial_iou", "weighted_spatial_iou", "mse"):
        assert metrics[metric].value == getattr(ours, metric), metric
        assert metrics[metric].sample_count == 9
    assert any(f"second return value {ours.physical_variance}" in n
               for n in imported.card.notes)


def test_rows_are_the_csvs_views_as_the_runner_lays_them_out():
    imported = importer.import_csv(OFFICIAL / "follows.csv", "follows")
    rows = csv_file.read_csv(OFFICIAL / "follows.csv")
    assert [s.sample_id for s in imported.samples] == [
        f"{v}_{r.scenario}" for r in rows for v in VIEWS]
    first = imported.samples[0]
    values = rows[0].views[VIEWS[0]]
    st = values["spatiotemporal_iou_v1"]
    assert first.split == "generated"
    assert first.metrics["spatiotemporal_iou"] == sum(st) / len(st)
    assert first.metrics["spatial_iou"] == values["spatial_iou_v1"]
    assert json.loads(first.diagnostics["physics_iq/v1_mse"]) == values["v1_mse"]
    assert first.diagnostics["scenario"] == rows[0].scenario
    assert list(imported.raw_table_metrics) == sorted(
        ["spatiotemporal_iou", "spatial_iou", "weighted_spatial_iou", "mse"])


def test_without_descriptions_coverage_is_a_count_of_the_official_198():
    card = importer.import_csv(OFFICIAL / "follows.csv", "follows").card
    assert card.verification.scope == scorecard_pb2.IMPORTED_OFFICIAL_RESULTS
    assert not card.verification.leaderboard_eligible
    assert card.coverage.expected == 198 and card.coverage.evaluated == 9
    assert _reasons(card) == [scorecard_pb2.IMPORTED_NOT_RECOMPUTED,
                              scorecard_pb2.NOT_OFFICIAL_DATA,
                              scorecard_pb2.INCOMPLETE_COVERAGE]
    details = [b.detail for b in card.verification.blocking]
    assert "recomputed only calculate_iq_score's arithmetic" in details[0]
    assert "has 9 views, not the official 198" in details[1]
    assert "9 of the official 198 views" in details[2]


def _descriptions(path, scenarios):
    physics_iq_tree.write_descriptions(path, physics_iq_tree.rows(scenarios))
    return path


def test_descriptions_give_the_runners_ids_and_name_the_missing_views(tmp_path):
    extra = physics_iq_tree.Scenario("trimmed-cup-tips.mp4", "Solid Mechanics", "A cup.",
                                     "fall")
    path = _descriptions(tmp_path / "descriptions.csv", physics_iq_tree.SCENARIOS + (extra,))
    imported = importer.import_csv(OFFICIAL / "freezes.csv", "freezes", path)
    card = imported.card
    assert imported.samples[0].sample_id == "0001_perspective-left_trimmed-ball-falls.mp4"
    missing = [f"generated/{i:04d}_{v}_trimmed-cup-tips.mp4"
               for i, v in zip((10, 11, 12), VIEWS)]
    assert card.coverage.expected == 12 and list(card.coverage.missing_sample_ids) == sorted(
        m.split("/", 1)[1] for m in missing)
    score = _by_id(card)["physics_iq_score"]
    assert score.value == SCORES["freezes"]["calculate_iq_score"][0]
    assert score.expected_sample_count == 12 and sorted(score.missing_sample_ids) == sorted(
        missing)
    assert _reasons(card)[:3] == [scorecard_pb2.IMPORTED_NOT_RECOMPUTED,
                                  scorecard_pb2.NOT_OFFICIAL_DATA,
                                  scorecard_pb2.INCOMPLETE_COVERAGE]
    assert "is none of the official descriptions files" in card.verification.blocking[1].detail


def test_a_scenario_the_descriptions_lack_is_refused(tmp_path):
    path = _descriptions(tmp_path / "descriptions.csv", physics_iq_tree.SCENARIOS[:2])
    with pytest.raises(InputError, match=r"follows.csv: row 3 \(line 4\), column scenario.*"
                                         r"'trimmed-dye-spreads.mp4' has none"):
        importer.import_csv(OFFICIAL / "follows.csv", "follows", path)


def test_outputs_hold_the_csv_byte_for_byte(tmp_path):
    imported = importer.import_csv(OFFICIAL / "diverges.csv", "diverges")
    card = importer.write_outputs(tmp_path / "out", imported, {"csv": OFFICIAL})
    copied = tmp_path / "out" / "results" / "diverges.csv"
    assert copied.read_bytes() == (OFFICIAL / "diverges.csv").read_bytes()
    assert card.output_files["metrics_csv"] == str(copied)
    written = json.loads((tmp_path / "out" / "scorecard.json").read_text())
    assert written["benchmark_id"] == "physics-iq"
    lines = (tmp_path / "out" / "per_sample_scores.jsonl").read_text().splitlines()
    assert len(lines) == 9


# --- refusals -------------------------------------------------------------------------

def _edited(tmp_path, row_no: int, column: str, text: str) -> pathlib.Path:
    """follows.csv with data row `row_no`'s `column` cell replaced by `text`."""
    with open(OFFICIAL / "follows.csv", newline="") as f:
        records = list(csv.reader(f))
    records[row_no][records[0].index(column)] = text
    path = tmp_path / "follows.csv"
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(records)
    return path


def _main(tmp_path, capsys, *args) -> str:
    """import_main through app_main's guard, as the binary runs it: the exit code 2 and
    the message."""
    flags.FLAGS(["import", *args, f"--output_dir={tmp_path / 'out'}"])
    try:
        with pytest.raises(SystemExit) as e:
            app_main.guard(import_main.main)(["import"])
    finally:
        flags.FLAGS.unparse_flags()
    assert e.value.code == 2
    return capsys.readouterr().err


def test_a_malformed_cell_exits_2_naming_file_row_and_column(tmp_path, capsys):
    path = _edited(tmp_path, 2, "spatial_iou_v1_perspective-center", "0.5x")
    err = _main(tmp_path, capsys, f"--csv={path}")
    assert f"{path}: row 2 (line 3), column spatial_iou_v1_perspective-center" in err
    assert "'0.5x'" in err


def test_a_missing_column_is_refused_naming_it(tmp_path):
    with open(OFFICIAL / "follows.csv", newline="") as f:
        records = list(csv.reader(f))
    drop = records[0].index("variance_mse_perspective-right")
    path = tmp_path / "follows.csv"
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows([r[:drop] + r[drop + 1:] for r in records])
    with pytest.raises(InputError, match=r"line 1 \(header\).*missing "
                                         r"\['variance_mse_perspective-right'\]"):
        importer.import_csv(path, "follows")


BOUNDS = metric_specs.BY_ID["spatial_iou"].official_range
CASES = bad_inputs.value_cases(BOUNDS)


@pytest.mark.parametrize("name", [c.name for c in CASES])
def test_an_impossible_scalar_is_refused_naming_its_cell(tmp_path, name):
    """bad_inputs' value cases (NaN, inf, above and below [0, 1]) in one scalar cell: the
    score is one number over every cell, so the file is refused (read_csv refuses the
    non-finite ones itself, naming the cell)."""
    case = next(c for c in CASES if c.name == name)
    value = case.value(BOUNDS)
    path = _edited(tmp_path, 3, "spatial_iou_v1_perspective-right", repr(value))
    with pytest.raises(InputError) as e:
        importer.import_csv(path, "follows")
    where = f"{path}: row 3 (line 4), column spatial_iou_v1_perspective-right"
    assert where in str(e.value)
    if math.isfinite(value):
        assert case.fragment in str(e.value) and "spatial_iou " in str(e.value)
    else:
        assert repr(repr(value)) in str(e.value)


def test_an_impossible_frame_value_is_refused_naming_its_frame(tmp_path):
    rows = csv_file.read_csv(OFFICIAL / "follows.csv")
    frames = list(rows[0].views["perspective-left"]["variance_mse"])
    frames[4] = 1.5   # above [0, 1]: an MSE of [0, 1] frames cannot be
    frames[7] = -0.25
    path = _edited(tmp_path, 1, "variance_mse_perspective-left", str(frames))
    with pytest.raises(InputError) as e:
        importer.import_csv(path, "follows")
    message = str(e.value)
    for k, value in ((4, 1.5), (7, -0.25)):
        assert (f"row 1 (line 2), column variance_mse_perspective-left, frame {k}: mse "
                f"{value!r} is outside its official range [0, 1]") in message
    assert "2 cell values are not" in message


def test_main_refuses_no_csv(tmp_path, capsys):
    assert "found none given" in _main(tmp_path, capsys)


def test_main_writes_the_scorecard_under_the_csvs_stem(tmp_path, capsys):
    flags.FLAGS(["import", f"--csv={OFFICIAL / 'follows.csv'}",
                 f"--output_dir={tmp_path / 'out'}"])
    try:
        import_main.main(["import"])
    finally:
        flags.FLAGS.unparse_flags()
    card = json.loads((tmp_path / "out" / "scorecard.json").read_text())
    assert card["model_name"] == "follows"
    assert (tmp_path / "out" / "results" / "follows.csv").exists()
    assert "physics_iq_score" in capsys.readouterr().out
