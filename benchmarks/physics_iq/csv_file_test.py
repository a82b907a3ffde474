"""csv_file.py: the bytes upstream's pandas writer gives (checked in scratch against
`pd.DataFrame(rows).to_csv(index=False)`, pandas 2.3.3: identical for every case of
testdata/iq_score_official.json; upstream's read_csv + parse_list_of_floats read our files
back to the written values), the round trip, fail-closed reading, and pandas 2.x's float
parser."""

import csv
import io

import pytest

from benchmarks.common.errors import InputError
from benchmarks.physics_iq import csv_file, score_testing
from benchmarks.physics_iq.csv_file import COLUMNS, KEYS, VIEWS

RECIPE = dict(name="t", seed=3, scenarios=4, frames=5, kind="typical")


def test_columns_follow_upstreams_out_dict_order_per_view():
    assert len(COLUMNS) == 37
    assert COLUMNS[:4] == ("scenario", "v1_mse_perspective-left", "v2_mse_perspective-left",
                           "variance_spatial_perspective-left")
    assert COLUMNS[12] == "weighted_spatial_iou_v2_perspective-left"
    assert COLUMNS[13] == "v1_mse_perspective-center"
    assert COLUMNS[-1] == "weighted_spatial_iou_v2_perspective-right"


def _row(n_frames=2, mse=0.1, scalar=0.25):
    values = {k: ([1.0] + [mse] * (n_frames - 1) if k in csv_file.LIST_KEYS else scalar)
              for k in KEYS}
    return csv_file.ScenarioRow("trimmed-x.mp4", {v: dict(values) for v in VIEWS})


def test_cells_are_python_reprs_quoted_only_with_a_comma_and_lines_end_with_newline(tmp_path):
    path = tmp_path / "m.csv"
    csv_file.write_csv(path, [_row(2, mse=1e-05, scalar=0.1 + 0.2), _row(1)])
    text = path.read_bytes().decode()
    assert "\r" not in text and text.endswith("\n")
    header, first, second = text.splitlines()
    assert header == ",".join(COLUMNS)
    assert first.startswith('trimmed-x.mp4,"[1.0, 1e-05]","[1.0, 1e-05]",0.30000000000000004,')
    assert second.startswith("trimmed-x.mp4,[1.0],[1.0],0.25,0.25,[1.0],[1.0],[1.0],[1.0],0.25")


def test_round_trip_gives_back_the_values(tmp_path):
    rows = score_testing.rows(RECIPE)
    path = tmp_path / "m.csv"
    csv_file.write_csv(path, rows)
    assert csv_file.read_csv(path) == rows


def test_reader_accepts_any_column_order(tmp_path):
    rows = score_testing.rows(RECIPE)
    path = tmp_path / "m.csv"
    csv_file.write_csv(path, rows)
    lines = [line.split(",", 1) for line in path.read_text().splitlines()]
    # Swap the scenario column to the end: the Verified writer orders columns freely.
    path.write_text("\n".join(f"{rest},{first}" for first, rest in lines) + "\n")
    assert csv_file.read_csv(path) == rows


def test_writer_refuses_a_missing_view_key_or_non_finite_value(tmp_path):
    row = _row()
    del row.views["perspective-right"]["variance_mse"]
    with pytest.raises(ValueError, match="variance_mse_perspective-right missing"):
        csv_file.write_csv(tmp_path / "m.csv", [row])
    with pytest.raises(ValueError, match="not finite"):
        csv_file.write_csv(tmp_path / "m.csv", [_row(scalar=float("nan"))])


def _corrupt(tmp_path, column, text):
    path = tmp_path / "bad.csv"
    csv_file.write_csv(path, [_row(), _row()])
    records = list(csv.reader(io.StringIO(path.read_text())))
    records[2][records[0].index(column)] = text
    records[2][0] = "other.mp4"
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(records)
    path.write_text(out.getvalue())
    return path


@pytest.mark.parametrize("column, text", [
    ("v1_mse_perspective-center", "[0.1, abc]"),
    ("v1_mse_perspective-center", "0.1, 0.2"),
    ("v1_mse_perspective-center", "[]"),
    ("spatial_iou_v1_perspective-right", ""),
    ("spatial_iou_v1_perspective-right", "nan"),
    ("spatial_iou_v1_perspective-right", "[0.5]"),
])
def test_a_malformed_cell_names_file_row_and_column(tmp_path, column, text):
    path = _corrupt(tmp_path, column, text)
    with pytest.raises(InputError) as e:
        csv_file.read_csv(path)
    assert str(path) in str(e.value)
    assert "row 2 (line 3)" in str(e.value)
    assert f"column {column}" in str(e.value)


def test_header_problems_are_named(tmp_path):
    path = tmp_path / "m.csv"
    csv_file.write_csv(path, [_row()])
    text = path.read_text().replace("variance_mse_perspective-left", "Unnamed: 0", 1)
    path.write_text(text)
    with pytest.raises(InputError, match=r"line 1 \(header\).*missing "
                       r"\['variance_mse_perspective-left'\].*unknown \['Unnamed: 0'\]"):
        csv_file.read_csv(path)


def test_duplicate_scenario_and_short_row_are_refused(tmp_path):
    path = tmp_path / "m.csv"
    csv_file.write_csv(path, [_row(), _row()])
    with pytest.raises(InputError, match="row 2 .*column scenario"):
        csv_file.read_csv(path)
    path.write_text(path.read_text().splitlines()[0] + "\nonly.mp4,[1.0]\n")
    with pytest.raises(InputError, match="row 1 .*37 cells"):
        csv_file.read_csv(path)


# pandas 2.3.3 read_csv (float_precision None) on these cells, from the scratch venv; the
# scratch check also matched pandas on 250,010 random reprs (0 differences).
PANDAS_READS = [
    ("0.25891675029296335", 0.2589167502929633),   # 17th digit dropped: one ulp below
    ("0.30331272607892745", 0.3033127260789274),
    ("0.5", 0.5),
    ("1e-05", 1e-05),
    ("0.12345678901234567890", 0.1234567890123456),
]


@pytest.mark.parametrize("text, expected", PANDAS_READS)
def test_pandas_float_is_pandas_2s_parser_not_correctly_rounded(text, expected):
    assert csv_file.pandas_float(text) == expected


def test_pandas_float_differs_from_float_where_pandas_does():
    assert csv_file.pandas_float("0.25891675029296335") != float("0.25891675029296335")
    assert csv_file.upstream_scalar(0.25891675029296335) == 0.2589167502929633
