"""llm-vqa.py's own output files, byte for byte, so leaderboard.py reads ours.

    vqa_results/{Model}/{scene}-{video_id}.csv   one row: scene, video_id, folder,
                                                 Evaluation (json.dumps of the parsed
                                                 answer), score (json.dumps of the dict)
    vqa_results/{Model}/overall.csv              scene, video_id, <dimension columns>
Both written by csv.DictWriter with the default (excel) dialect: "\\r\\n" line ends,
minimal quoting, UTF-8. Only scored clips get a file.

Differences, none read by leaderboard.py (which skips overall.csv, it has no `score`):
overall.csv lists every scored clip of the run, resumed ones included (llm-vqa.py lists only
the clips processed by that invocation), and its columns are the union of the dimensions
in first-seen order (llm-vqa.py takes the first row's keys and raises on a later new one).
"""

import csv
import io
import pathlib
from typing import Dict, List, Sequence

from benchmarks.common import sample_store

CLIP_COLUMNS = ("scene", "video_id", "folder", "Evaluation", "score")
OVERALL = "overall.csv"


def model_dir(output_dir: pathlib.Path, model_name: str) -> pathlib.Path:
    if not model_name or "/" in model_name or "\\" in model_name or model_name in (".", ".."):
        raise ValueError(f"model name {model_name!r} cannot be a folder name")
    return pathlib.Path(output_dir) / "vqa_results" / model_name


def clip_csv_path(folder: pathlib.Path, clip_id: str) -> pathlib.Path:
    return folder / f"{clip_id}.csv"


def _write_rows(path: pathlib.Path, columns: Sequence[str], rows: List[dict]) -> None:
    """The rows as csv.DictWriter writes them to a file opened with newline="" (UTF-8,
    "\r\n" untranslated), whole or not at all (sample_store.atomic_file: a full disk
    leaves the file as it was and names it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=list(columns))
    writer.writeheader()
    writer.writerows(rows)
    with sample_store.atomic_file(path, binary=True) as f:
        f.write(text.getvalue().encode("utf-8"))


def write_clip(path: pathlib.Path, scene: str, video_id: str, folder: str,
               evaluation_json: str, score_json: str) -> pathlib.Path:
    """One clip's CSV; the JSON cells are the strings json.dumps made when scoring."""
    _write_rows(path, CLIP_COLUMNS, [{"scene": scene, "video_id": video_id, "folder": folder,
                                      "Evaluation": evaluation_json, "score": score_json}])
    return path


def write_overall(path: pathlib.Path, rows: List[Dict[str, object]]) -> pathlib.Path:
    """overall.csv from (scene, video_id, dims...) dicts, in the given order."""
    columns: List[str] = []
    for row in rows:
        columns.extend(k for k in row if k not in columns)
    _write_rows(path, columns, rows)
    return path
