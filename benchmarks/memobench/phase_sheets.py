"""MemoBench's phase-boundary sheets (spec §2.2): where the object exits and re-enters.

Values are in GT frame space. Rows are read exactly as the official `run_eval.py` reads
them: synthetic rows with skip == "yes" (any case) and rows whose boundaries do not
parse as numbers are dropped; numbers go through `int(float(x))` (9.7 is frame 9, kept
with a note naming the cell); of two rows for the same clip the last wins; exits >
re-enter is kept (map_keyframes then clamps re-enter). A negative boundary is not a GT
frame: that row is dropped here, its clip an error naming the sheet, row and value.
None of that is silent here: each such row is named (sheet and spreadsheet row number,
the header being row 1) in `SheetRows.problems`, a dropped row's clip in `dropped`, and
a kept but suspect row in its `PhaseRow.notes` (which the clip's diagnostics carry).
"""

import dataclasses
import pathlib
from typing import Dict, List, Optional, Tuple

import pandas as pd

from benchmarks.common.errors import InputError

SHEET_SUFFIXES = (".xlsx", ".csv", ".xls")


@dataclasses.dataclass(frozen=True)
class PhaseRow:
    """One clip's V-D-R boundaries in GT frames, and its prompt when the sheet has one."""

    h_gt: int
    r_gt: int
    prompt: str = ""
    # What is odd about the row, kept as upstream keeps it (sheet and row named).
    notes: Tuple[str, ...] = dataclasses.field(default=(), compare=False)


class SheetRows(dict):
    """{clip id: PhaseRow} of one sheet, and what the sheet holds that is not a row."""

    def __init__(self, path: Optional[pathlib.Path] = None, data_rows: int = 0):
        super().__init__()
        self.path = path
        self.data_rows = data_rows      # rows under the header, before any is dropped
        self.dropped: Dict[str, str] = {}  # clip id -> why its row was dropped
        self.problems: List[str] = []   # every dropped, duplicate or suspect row

    def _add(self, clip: str, row: PhaseRow, number: int, first_numbers: Dict[str, int],
             truncated: str = ""):
        notes = []
        if truncated:
            notes.append(f"{self.path} row {number} ({clip}): {truncated}")
        if row.h_gt > row.r_gt:
            notes.append(f"{self.path} row {number} ({clip}): exits {row.h_gt} > re-enter "
                         f"{row.r_gt}; used as run_eval.py uses it (the mapped re-enter "
                         "frame is clamped to exits + 2)")
        if clip in first_numbers:
            notes.append(f"{self.path} rows {first_numbers[clip]} and {number} are both "
                         f"{clip}: row {number} (the last) is used, as run_eval.py does")
        first_numbers.setdefault(clip, number)
        self.problems += notes
        self.dropped.pop(clip, None)
        self[clip] = dataclasses.replace(row, notes=tuple(notes))

    def _drop(self, clip: Optional[str], number: int, why: str):
        text = f"{self.path} row {number}{f' ({clip})' if clip else ''}: {why}"
        self.problems.append(text)
        if clip and clip not in self:
            self.dropped[clip] = text


def read_table(path: pathlib.Path) -> pd.DataFrame:
    """Reads a .xlsx/.xls/.csv sheet; anything else is an InputError."""
    suffix = path.suffix.lower()
    try:
        if suffix == ".csv":
            return pd.read_csv(path)
        if suffix in (".xlsx", ".xls"):
            return pd.read_excel(path)
    except ImportError as e:
        raise InputError(path, "a sheet pandas can read", f"a reader missing ({e}); "
                         "convert it to .xlsx or .csv") from e
    except Exception as e:  # pylint: disable=broad-except  (corrupt file: say which)
        raise InputError(path, "a readable spreadsheet", f"{type(e).__name__}: {e}") from e
    raise InputError(path, "a phase sheet ending in .xlsx, .xls or .csv")


def find_sheet(directory: pathlib.Path, stem: str) -> Optional[pathlib.Path]:
    """`directory/stem.xlsx`, else `.csv`, else `.xls`; None when none exists."""
    for suffix in SHEET_SUFFIXES:
        candidate = directory / (stem + suffix)
        if candidate.is_file():
            return candidate
    return None


def _require(df: pd.DataFrame, path: pathlib.Path, columns) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise InputError(path, f"columns {', '.join(columns)}",
                         f"no {', '.join(missing)} (columns: {', '.join(map(str, df.columns))})")


def _as_int(value) -> Optional[int]:
    try:
        return int(float(value))
    except (ValueError, TypeError, OverflowError):
        return None


def _not_numbers(row, columns) -> str:
    bad = [f"{c} {row[c]!r}" for c in columns if _as_int(row[c]) is None]
    return (", ".join(bad) + " not a number; run_eval.py drops such a row, so the clip "
            "has no phase boundaries")


def _shown(value) -> str:
    """A cell as the sheet shows it: text quoted, a number as a spreadsheet shows it
    (9.7, and -5 for the -5.0 that pandas reads from a column with a blank cell)."""
    if isinstance(value, str):
        return repr(value)
    number = float(value)
    return str(int(number)) if number.is_integer() else str(number)


def _truncated(row, columns) -> str:
    """What int(float(x)) cuts off a boundary that is not a whole number ("" if none)."""
    cut = [c for c in columns if float(row[c]) != _as_int(row[c])]
    if not cut:
        return ""
    return (", ".join(f"{c} {_shown(row[c])}" for c in cut) + " not a whole number; used "
            "as " + ", ".join(f"{c} {_as_int(row[c])}" for c in cut)
            + ", as run_eval.py's int(float(x)) reads it")


def _negative(row, columns) -> str:
    """Why a row with a negative boundary is dropped ("" if none is negative)."""
    bad = [f"{c} {_shown(row[c])}" for c in columns if _as_int(row[c]) < 0]
    return (", ".join(bad) + " is negative: a phase boundary is a GT frame index (0 or "
            "more), so the clip has no phase boundaries") if bad else ""


def _number(index) -> int:
    return int(index) + 2  # the spreadsheet's row number: the header is row 1


def read_synthetic_sheet(path: pathlib.Path) -> Dict[str, PhaseRow]:
    """{video_folder: PhaseRow} from Synthetic_ExitReenter (columns video_folder, exits,
    re-enter, optional skip and prompt)."""
    df = read_table(path).reset_index(drop=True)
    _require(df, path, ["video_folder", "exits", "re-enter"])
    rows, first = SheetRows(path, len(df)), {}
    skip_cols = [c for c in df.columns if str(c).lower() == "skip"]
    if skip_cols:
        df = df[df[skip_cols[0]].astype(str).str.lower() != "yes"]
    for index, row in df.iterrows():
        clip = str(row["video_folder"]).strip()
        h, r = _as_int(row["exits"]), _as_int(row["re-enter"])
        if h is None or r is None:
            rows._drop(clip, _number(index), _not_numbers(row, ["exits", "re-enter"]))
            continue
        if _negative(row, ["exits", "re-enter"]):
            rows._drop(clip, _number(index), _negative(row, ["exits", "re-enter"]))
            continue
        rows._add(clip, PhaseRow(h_gt=h, r_gt=r, prompt=str(row.get("prompt", "")).strip()),
                  _number(index), first, _truncated(row, ["exits", "re-enter"]))
    return rows


def read_real_sheet(path: pathlib.Path) -> Dict[str, PhaseRow]:
    """{"NNN": PhaseRow} from Real_ExitReenter (columns id, exit, reenter)."""
    df = read_table(path).reset_index(drop=True)
    _require(df, path, ["id", "exit", "reenter"])
    rows, first = SheetRows(path, len(df)), {}
    for index, row in df.iterrows():
        clip, h, r = _as_int(row["id"]), _as_int(row["exit"]), _as_int(row["reenter"])
        name = str(clip).zfill(3) if clip is not None else None
        if clip is None or h is None or r is None:
            rows._drop(name, _number(index), _not_numbers(row, ["id", "exit", "reenter"]))
            continue
        if _negative(row, ["exit", "reenter"]):
            rows._drop(name, _number(index), _negative(row, ["exit", "reenter"]))
            continue
        rows._add(name, PhaseRow(h_gt=h, r_gt=r), _number(index), first,
                  _truncated(row, ["id", "exit", "reenter"]))
    return rows


def read_real_selection(path: pathlib.Path) -> set:
    """Real clip ids marked Availability == "yes" in the optional Real_Selected sheet."""
    df = read_table(path)
    _require(df, path, ["ID", "Availability"])
    yes = df[df["Availability"].astype(str).str.strip().str.lower() == "yes"]
    return {str(v).zfill(3) for v in (_as_int(x) for x in yes["ID"]) if v is not None}
