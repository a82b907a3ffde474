"""MemoBench's phase-boundary sheets (spec §2.2): where the object exits and re-enters.

Values are in GT frame space. Rows are read exactly as the official `run_eval.py` reads
them: synthetic rows with skip == "yes" (any case) and rows whose boundaries do not
parse as numbers are dropped; numbers go through `int(float(x))`.
"""

import dataclasses
import pathlib
from typing import Dict, Optional

import pandas as pd

from benchmarks.common.errors import InputError

SHEET_SUFFIXES = (".xlsx", ".csv", ".xls")


@dataclasses.dataclass(frozen=True)
class PhaseRow:
    """One clip's V-D-R boundaries in GT frames, and its prompt when the sheet has one."""

    h_gt: int
    r_gt: int
    prompt: str = ""


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
    except (ValueError, TypeError):
        return None


def read_synthetic_sheet(path: pathlib.Path) -> Dict[str, PhaseRow]:
    """{video_folder: PhaseRow} from Synthetic_ExitReenter (columns video_folder, exits,
    re-enter, optional skip and prompt)."""
    df = read_table(path)
    _require(df, path, ["video_folder", "exits", "re-enter"])
    skip_cols = [c for c in df.columns if str(c).lower() == "skip"]
    if skip_cols:
        df = df[df[skip_cols[0]].astype(str).str.lower() != "yes"]
    rows = {}
    for _, row in df.iterrows():
        h, r = _as_int(row["exits"]), _as_int(row["re-enter"])
        if h is None or r is None:
            continue
        rows[str(row["video_folder"]).strip()] = PhaseRow(
            h_gt=h, r_gt=r, prompt=str(row.get("prompt", "")).strip())
    return rows


def read_real_sheet(path: pathlib.Path) -> Dict[str, PhaseRow]:
    """{"NNN": PhaseRow} from Real_ExitReenter (columns id, exit, reenter)."""
    df = read_table(path)
    _require(df, path, ["id", "exit", "reenter"])
    rows = {}
    for _, row in df.iterrows():
        clip, h, r = _as_int(row["id"]), _as_int(row["exit"]), _as_int(row["reenter"])
        if clip is None or h is None or r is None:
            continue
        rows[str(clip).zfill(3)] = PhaseRow(h_gt=h, r_gt=r)
    return rows


def read_real_selection(path: pathlib.Path) -> set:
    """Real clip ids marked Availability == "yes" in the optional Real_Selected sheet."""
    df = read_table(path)
    _require(df, path, ["ID", "Availability"])
    yes = df[df["Availability"].astype(str).str.strip().str.lower() == "yes"]
    return {str(v).zfill(3) for v in (_as_int(x) for x in yes["ID"]) if v is not None}
