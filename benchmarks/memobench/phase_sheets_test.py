"""Phase sheets are read as run_eval.py reads them."""

import pandas as pd
import pytest

from benchmarks.common.errors import InputError
from benchmarks.memobench import phase_sheets


def _write(df, path):
    if path.suffix == ".csv":
        df.to_csv(path, index=False)
    else:
        df.to_excel(path, index=False)
    return path


@pytest.mark.parametrize("suffix", [".xlsx", ".csv"])
def test_synthetic_sheet_skips_and_parses_like_upstream(tmp_path, suffix):
    df = pd.DataFrame({
        "video_folder": ["Barnyard_001", " Barnyard_002 ", "Barnyard_003", "Barnyard_004"],
        "exits": [100, "57.9", 10, "n/a"],
        "re-enter": [200, 120, 20, 30],
        "Skip": ["no", "", "YES", "no"],
        "prompt": ["p1", "p2", "p3", "p4"],
    })
    rows = phase_sheets.read_synthetic_sheet(_write(df, tmp_path / ("s" + suffix)))
    assert set(rows) == {"Barnyard_001", "Barnyard_002"}  # skipped and unparseable dropped
    assert rows["Barnyard_002"] == phase_sheets.PhaseRow(57, 120, "p2")  # int(float("57.9"))


def test_real_sheet_pads_ids(tmp_path):
    df = pd.DataFrame({"id": [1, 42.0], "exit": [10, 11], "reenter": [30, 31]})
    rows = phase_sheets.read_real_sheet(_write(df, tmp_path / "r.xlsx"))
    assert rows == {"001": phase_sheets.PhaseRow(10, 30), "042": phase_sheets.PhaseRow(11, 31)}


def test_missing_columns_name_the_file_and_columns(tmp_path):
    path = _write(pd.DataFrame({"video_folder": ["a"], "exit": [1]}), tmp_path / "bad.csv")
    with pytest.raises(InputError, match=r"bad\.csv.*exits, re-enter"):
        phase_sheets.read_synthetic_sheet(path)


def test_corrupt_and_unknown_files(tmp_path):
    corrupt = tmp_path / "s.xlsx"
    corrupt.write_bytes(b"not a zip")
    with pytest.raises(InputError, match="readable spreadsheet"):
        phase_sheets.read_table(corrupt)
    with pytest.raises(InputError, match=r"\.xlsx, \.xls or \.csv"):
        phase_sheets.read_table(tmp_path / "s.json")


def test_find_sheet_prefers_xlsx(tmp_path):
    assert phase_sheets.find_sheet(tmp_path, "X") is None
    (tmp_path / "X.csv").write_text("a\n")
    assert phase_sheets.find_sheet(tmp_path, "X").name == "X.csv"
    (tmp_path / "X.xlsx").write_text("")
    assert phase_sheets.find_sheet(tmp_path, "X").name == "X.xlsx"


def test_real_selection(tmp_path):
    df = pd.DataFrame({"ID": [1, 2, 3], "Availability": ["yes", "no", " Yes "]})
    assert phase_sheets.read_real_selection(_write(df, tmp_path / "sel.csv")) == {"001", "003"}


def test_odd_rows_are_kept_as_upstream_but_named(tmp_path):
    df = pd.DataFrame({
        "video_folder": ["A_001", "A_002", "A_003", "A_002", "A_004"],
        "exits": [30, 10, "soon", 12, 5],
        "re-enter": [10, 20, 40, 22, 9],
    })
    path = _write(df, tmp_path / "s.csv")
    rows = phase_sheets.read_synthetic_sheet(path)
    # The numbers are upstream's: exits > re-enter kept, the last duplicate wins, the
    # non-numeric row dropped.
    assert rows == {"A_001": phase_sheets.PhaseRow(30, 10), "A_002": phase_sheets.PhaseRow(12, 22),
                    "A_004": phase_sheets.PhaseRow(5, 9)}
    assert rows.data_rows == 5
    assert rows["A_001"].notes == (f"{path} row 2 (A_001): exits 30 > re-enter 10; used as "
                                   "run_eval.py uses it (the mapped re-enter frame is clamped "
                                   "to exits + 2)",)
    assert rows["A_002"].notes == (f"{path} rows 3 and 5 are both A_002: row 5 (the last) is "
                                   "used, as run_eval.py does",)
    assert rows.dropped == {"A_003": f"{path} row 4 (A_003): exits 'soon' not a number; "
                            "run_eval.py drops such a row, so the clip has no phase boundaries"}
    assert len(rows.problems) == 3 and not rows["A_004"].notes


def test_header_only_and_real_rows(tmp_path):
    rows = phase_sheets.read_real_sheet(_write(pd.DataFrame(
        {"id": [], "exit": [], "reenter": []}), tmp_path / "r.csv"))
    assert rows == {} and rows.data_rows == 0 and not rows.problems
    rows = phase_sheets.read_real_sheet(_write(pd.DataFrame(
        {"id": ["x", 2], "exit": [1, 2], "reenter": [3, 4]}), tmp_path / "r2.csv"))
    assert list(rows) == ["002"] and rows.dropped == {}
    assert rows.problems == [f"{tmp_path / 'r2.csv'} row 2: id 'x' not a number; run_eval.py "
                             "drops such a row, so the clip has no phase boundaries"]


@pytest.mark.parametrize("suffix", [".xlsx", ".csv"])
def test_a_fractional_boundary_is_kept_as_upstream_and_noted(tmp_path, suffix):
    df = pd.DataFrame({"video_folder": ["Barnyard_001", "Barnyard_002"],
                       "exits": [9.7, 10], "re-enter": [20, 30]})
    path = _write(df, tmp_path / ("s" + suffix))
    rows = phase_sheets.read_synthetic_sheet(path)
    assert rows["Barnyard_001"] == phase_sheets.PhaseRow(9, 20)  # int(float(9.7)), as upstream
    [note] = rows["Barnyard_001"].notes
    assert note == (f"{path} row 2 (Barnyard_001): exits 9.7 not a whole number; used as "
                    "exits 9, as run_eval.py's int(float(x)) reads it")
    assert rows.problems == [note] and not rows["Barnyard_002"].notes


def test_a_negative_boundary_drops_the_row_naming_sheet_row_and_value(tmp_path):
    df = pd.DataFrame({"video_folder": ["Barnyard_001", "Barnyard_002"],
                       "exits": [10, -5], "re-enter": [20, 30]})
    path = _write(df, tmp_path / "s.xlsx")
    rows = phase_sheets.read_synthetic_sheet(path)
    assert set(rows) == {"Barnyard_001"}
    assert rows.dropped["Barnyard_002"].startswith(
        f"{path} row 3 (Barnyard_002): exits -5 is negative")
    real = phase_sheets.read_real_sheet(_write(
        pd.DataFrame({"id": [1, 2], "exit": [10, 11.5], "reenter": [-1, 31]}),
        tmp_path / "r.csv"))
    assert set(real) == {"002"} and "row 2 (001): reenter -1 is negative" in real.dropped["001"]
    assert "exit 11.5 not a whole number; used as exit 11" in real["002"].notes[0]
