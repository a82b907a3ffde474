"""The official per-step result files, found and read as MemoBench's leaderboard.py does.

Reproduces leaderboard/leaderboard.py (MemoBench HEAD as pinned by the spec, §8):
  - `--eval-dir/{model}/eval_*.csv`: only the most recently modified file per model;
  - `--ors-dir/{model}/ors_scores.csv`;
  - `--vqa-dir/{model}/*.csv`: folders ending `_old` or named `Lingbot` are skipped, CSVs
    without a `score` column (overall.csv) are ignored, each row's JSON `score` becomes
    0-100 values under the leaderboard's names;
  - model folders in sorted order, each named through `_CANONICAL_KEY` (else lower-cased);
    two folders with one key: the later in sorted order wins, as its dict assignment does.
Where leaderboard.py would crash on a malformed VQA cell it is skipped here and a note
says so (see `read_vqa_dir`).
"""

import dataclasses
import json
import math
import pathlib
from typing import Dict, List, Optional

import pandas as pd

from benchmarks.common.errors import InputError
from benchmarks.memobench.vqa import official

EVAL_PATTERN = "eval_*.csv"
ORS_FILE = "ors_scores.csv"

# leaderboard.py _CANONICAL_KEY: folder name -> model key.
CANONICAL_KEY = {
    "lingbot-world": "lingbot-world", "LingBot-World": "lingbot-world",
    "Lingbot": "lingbot-world",
    "wan2.2": "wan2.2", "Wan2.2": "wan2.2",
    "fantasy-world": "fantasy-world", "FantasyWorld": "fantasy-world",
    "matrix-game2": "matrix-game2", "Matrix-Game2": "matrix-game2",
    "stable-virtual-camera": "stable-virtual-camera",
    "StableVirtualCamera": "stable-virtual-camera",
    "open-sora": "open-sora", "Open-SoRA": "open-sora",
    "ltx-video": "ltx-video", "LTX-Video": "ltx-video",
    "cogvideo": "cogvideo", "CogVideoX": "cogvideo",
}
# leaderboard.py MODEL_DISPLAY_NAMES: model key -> the CSV's "Model" value.
MODEL_DISPLAY_NAMES = {
    "lingbot-world": "LingBot-World", "wan2.2": "Wan2.2", "fantasy-world": "FantasyWorld",
    "matrix-game2": "Matrix-Game2", "stable-virtual-camera": "SVC", "open-sora": "Open-SoRA",
    "ltx-video": "LTX-Video", "cogvideo": "CogVideoX",
}
# leaderboard.py load_vqa_results VQA_KEY_MAP: llm-vqa.py dimension -> leaderboard column.
# leaderboard.py's VQA key map: llm-vqa.py's dimension names -> leaderboard columns.
VQA_KEY_MAP = official.DIMENSION_METRICS


def canonical_key(name: str) -> str:
    """leaderboard.py _canonicalize."""
    return CANONICAL_KEY.get(name, name.lower())


def display_name(key: str) -> str:
    return MODEL_DISPLAY_NAMES.get(key, key)


def keys_for(name: str) -> set:
    """Model keys a user-given name may mean: its canonical key, or the key it displays as."""
    return {canonical_key(name)} | {k for k, v in MODEL_DISPLAY_NAMES.items() if v == name}


def skipped_vqa_folder(name: str) -> bool:
    return name.endswith("_old") or name == "Lingbot"


@dataclasses.dataclass
class StepResults:
    """One step's results for one model: the file (or VQA folder) read, as a DataFrame."""

    path: pathlib.Path
    frame: pd.DataFrame
    notes: List[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class ModelResults:
    """What the official files hold for one model (None: no such step given or found)."""

    key: str
    eval: Optional[StepResults] = None
    ors: Optional[StepResults] = None
    vqa: Optional[StepResults] = None


def _read_csv(path: pathlib.Path, what: str, required, dtype) -> pd.DataFrame:
    if not path.is_file():
        raise InputError(path, what, "no such file")
    try:
        df = pd.read_csv(path, dtype=dtype)
    except Exception as e:  # pylint: disable=broad-except  (any parse failure: say which file)
        raise InputError(path, "a readable CSV", f"{type(e).__name__}: {e}") from e
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise InputError(path, f"{what} (columns {', '.join(required)}, ...)",
                         "no " + ", ".join(missing))
    return df


def first_non_number(frame: pd.DataFrame, column: str) -> str:
    """The first cell of `column` that is not a number, with its row (the header is row
    1, as a spreadsheet shows the file) and clip: "'abc' on row 3 (clip Barnyard_002)"."""
    cells = frame[column]
    numbers = pd.to_numeric(cells, errors="coerce")
    bad = [(n, index) for n, index in enumerate(cells.index)
           if pd.notna(cells[index]) and pd.isna(numbers[index])]
    if not bad:
        return "a column pandas cannot average"
    n, index = bad[0]
    clip = next((frame.at[index, c] for c in ("id", "clip_id", "folder") if c in frame.columns),
                None)
    where = f" in {frame.at[index, 'file']}" if "file" in frame.columns else ""
    return (f"{cells[index]!r} on row {n + 2}{where} (the header is row 1"
            + (f"; clip {clip}" if clip is not None and pd.notna(clip) else "") + ")"
            + (f", and {len(bad) - 1} more such cells" if len(bad) > 1 else ""))


def require_rows(step: StepResults, flag: str) -> StepResults:
    """`step` when its file has at least one row; InputError naming the file otherwise
    (a header-only file is nothing to import, not a run of 0 clips)."""
    if len(step.frame.index) == 0:
        raise InputError(step.path, f"at least one clip row under the header ({flag}; "
                         "nothing to import otherwise)", "a header and no rows")
    return step


def read_eval_csv(path: pathlib.Path) -> StepResults:
    """An eval_*.csv of run_eval.py (spec §5); clip ids kept as text ("001")."""
    return StepResults(path, _read_csv(path, "an official MemoBench eval_*.csv",
                                       ("id", "data_type"), {"id": str}))


def read_ors_csv(path: pathlib.Path) -> StepResults:
    """An ors_scores.csv of compute_ors.py (spec §6)."""
    return StepResults(path, _read_csv(path, "an official MemoBench ors_scores.csv",
                                       ("clip_id", "data_type"), {"clip_id": str}))


def latest_eval_csv(model_dir: pathlib.Path) -> Optional[pathlib.Path]:
    """leaderboard.py _latest_csv: the most recently modified eval_*.csv.

    Equal times: leaderboard.py keeps glob's (file-system) order; here the later name wins.
    """
    csvs = sorted(model_dir.glob(EVAL_PATTERN), key=lambda p: (p.stat().st_mtime, p.name))
    return csvs[-1] if csvs else None


SCORE_PREFIX = "score:"  # read_vqa_dir's columns of the 0-1 values as llm-vqa.py wrote them


def _vqa_values(scores, name: str, notes: List[str]) -> Optional[dict]:
    """The 0-100 values (and "score:" 0-1 ones) of one parsed `score` cell, or None to skip."""
    if isinstance(scores, dict):
        values = {}
        for vqa_key, column in VQA_KEY_MAP.items():
            try:
                fraction = float(scores[vqa_key]) if vqa_key in scores else math.nan
            except (TypeError, ValueError):
                notes.append(f"{name}: {vqa_key}={scores[vqa_key]!r} is not a number; left "
                             "empty (leaderboard.py raises on it)")
                fraction = math.nan
            values[column], values[SCORE_PREFIX + column] = fraction * 100, fraction
        return values
    if isinstance(scores, (list, str)) and not any(k in scores for k in VQA_KEY_MAP):
        return {c: math.nan for column in VQA_KEY_MAP.values()  # as leaderboard.py
                for c in (column, SCORE_PREFIX + column)}
    notes.append(f"{name}: score {scores!r} is not a JSON object; row skipped "
                 "(leaderboard.py raises TypeError on it)")
    return None


def read_vqa_dir(model_dir: pathlib.Path) -> Optional[StepResults]:
    """leaderboard.py load_vqa_results for one model folder; None when it yields no row.

    Columns: scene, video_id, folder (as text), file, the four 0-100 VQA columns and the
    same four as read (0-1) under "score:<column>".
    """
    rows, notes = [], []
    for csv_path in sorted(model_dir.glob("*.csv")):
        try:
            df = pd.read_csv(csv_path, dtype={"scene": str, "video_id": str, "folder": str,
                                              "score": str})
        except Exception:  # pylint: disable=broad-except  (leaderboard.py skips such files)
            notes.append(f"{csv_path.name}: unreadable, skipped as leaderboard.py does")
            continue
        if "score" not in df.columns:
            continue  # overall.csv and other summaries
        for _, r in df.iterrows():
            cell = r["score"]
            try:
                scores = json.loads(cell)
            except (json.JSONDecodeError, TypeError):
                if isinstance(cell, str):
                    continue  # leaderboard.py: unparsable text is skipped silently
                scores = cell
            values = _vqa_values(scores, csv_path.name, notes)
            if values is None:
                continue
            rows.append({"scene": r.get("scene", ""), "video_id": r.get("video_id", ""),
                         "folder": r.get("folder", ""), "file": csv_path.name, **values})
    if not rows:
        return None
    return StepResults(model_dir, pd.DataFrame(rows), notes)


def model_folders(root: pathlib.Path, flag: str) -> List[pathlib.Path]:
    """The sub-folders of a per-step root, in leaderboard.py's (sorted) order."""
    if not root.is_dir():
        raise InputError(root, f"a folder of per-model result folders ({flag})", "no such folder")
    return [d for d in sorted(root.iterdir()) if d.is_dir()]


def read_model_folder(kind: str, folder: pathlib.Path) -> Optional[StepResults]:
    """One model's results of `kind` ("eval", "ors", "vqa") in its folder, if any."""
    if kind == "eval":
        path = latest_eval_csv(folder)
        return read_eval_csv(path) if path else None
    if kind == "ors":
        return read_ors_csv(folder / ORS_FILE) if (folder / ORS_FILE).is_file() else None
    return read_vqa_dir(folder)


def load_root(kind: str, root: pathlib.Path, flag: str) -> Dict[str, StepResults]:
    """leaderboard.py load_{eval,ors,vqa}_results: model key -> that model's results."""
    results, sources = {}, {}
    for folder in model_folders(root, flag):
        if kind == "vqa" and skipped_vqa_folder(folder.name):
            continue
        found = read_model_folder(kind, folder)
        if found is None:
            continue
        key = canonical_key(folder.name)
        if key in sources:
            found.notes.append(f"{flag}: folders {sources[key]} and {folder.name} are both "
                               f"model {key}; leaderboard.py keeps the later, {folder.name}")
        results[key], sources[key] = found, folder.name
    return results


def load_all(eval_dir=None, ors_dir=None, vqa_dir=None) -> Dict[str, ModelResults]:
    """Every model found under the given roots, by model key, in sorted key order."""
    loaded = {kind: load_root(kind, root, f"--{kind}_dir") if root else {}
              for kind, root in (("eval", eval_dir), ("ors", ors_dir), ("vqa", vqa_dir))}
    keys = sorted(set().union(*loaded.values()))
    return {k: ModelResults(k, **{kind: found.get(k) for kind, found in loaded.items()})
            for k in keys}


def is_model_folder(kind: str, folder: pathlib.Path) -> bool:
    """Whether `folder` holds one model's results itself (not per-model sub-folders)."""
    if kind == "eval":
        return any(folder.glob(EVAL_PATTERN))
    if kind == "ors":
        return (folder / ORS_FILE).is_file()
    return any(folder.glob("*.csv"))


def find_model(kind: str, folder: pathlib.Path, model_name: Optional[str], flag: str):
    """(results, name) of one model for an import.

    `folder` is that model's own folder, or a per-step root laid out as leaderboard.py's
    --{eval,ors,vqa}-dir, in which the model is chosen by `model_name` through the
    canonical map (or is the only one). `name` is the folder name or model key.
    """
    if not folder.is_dir():
        raise InputError(folder, f"a model's result folder or a folder of them ({flag})",
                         "no such folder")
    if is_model_folder(kind, folder):
        found = read_model_folder(kind, folder)
        if found is None:
            raise InputError(folder, "per-clip VQA CSVs with a `score` column (llm-vqa.py)",
                             "none with a readable row")
        return found, folder.name
    found = load_root(kind, folder, flag)
    if model_name:
        keys = sorted(keys_for(model_name) & set(found))
        if not keys:
            raise InputError(folder, f"a result folder for model {model_name!r} ({flag})",
                             "models " + (", ".join(found) or "none"))
        return found[keys[0]], keys[0]
    if len(found) == 1:
        (key, results), = found.items()
        return results, key
    raise InputError(folder, f"one model's results, or --model_name to choose ({flag})",
                     "models " + (", ".join(found) or "none"))
