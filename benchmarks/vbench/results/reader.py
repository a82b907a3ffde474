"""Finding and reading official `{name}_eval_results.json` files the way
scripts/cal_final_score.py does (spec §7).

cal_final_score.py extracts the zip into `<model_name>/` and walks it with os.listdir
(cal_final_score.py:11-40):
  - top-level entries whose name starts with "." or "__" (".DS_Store", "__MACOSX") are
    skipped;
  - a folder: its entries ending ".json" are read (one level deep; none skipped there);
  - a file whose name ends "json" is read;
  - a JSON that is not an object (full_info.json is a list) is ignored;
  - every key of every object read sets `upload[key] = value[0]`, so the LAST file in
    os.listdir order wins a dimension two files give.
Here a zip is extracted into a fresh temporary folder (upstream extracts over whatever
`<model_name>/` already holds), a folder is walked in place, and one file is read alone.
"""

import contextlib
import dataclasses
import json
import os
import pathlib
import tempfile
import zipfile
from typing import Iterator, List, Tuple

from benchmarks.common.errors import InputError

EXPECTED = ("VBench's eval_results.json: a JSON object {dimension: [aggregate, "
            "[{video_path, video_results, ...}, ...]]}")


@dataclasses.dataclass(frozen=True)
class Read:
    """One JSON file read: the name to show (zip members as `archive.zip:member`) and its
    content (an object, or whatever else it held: ignored as upstream ignores it)."""

    name: str
    content: object


def _load(path: pathlib.Path, name: str) -> Read:
    try:
        with open(path, encoding="utf-8") as f:
            return Read(name, json.load(f))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise InputError(name, EXPECTED, f"{type(e).__name__}: {e}") from e


def _walk(folder: pathlib.Path, shown: str) -> Tuple[List[Read], List[str]]:
    """The folder's JSON files in cal_final_score.py's order, and what it skipped."""
    reads, skipped = [], []
    for entry in os.listdir(folder):
        if entry.startswith(".") or entry.startswith("__"):
            skipped.append(entry)
            continue
        path = folder / entry
        if path.is_dir():
            for sub in os.listdir(path):
                if sub.endswith(".json"):
                    reads.append(_load(path / sub, f"{shown}{entry}/{sub}"))
        elif entry.endswith("json"):
            reads.append(_load(path, f"{shown}{entry}"))
    return reads, skipped


@contextlib.contextmanager
def _extracted(archive: pathlib.Path) -> Iterator[pathlib.Path]:
    with tempfile.TemporaryDirectory(prefix="vbench_import_") as tmp:
        try:
            with zipfile.ZipFile(archive) as z:
                z.extractall(tmp)
        except (OSError, zipfile.BadZipFile) as e:
            raise InputError(archive, "a zip of eval_results.json files (what "
                             "cal_final_score.py --zip_file reads)",
                             f"{type(e).__name__}: {e}") from e
        yield pathlib.Path(tmp)


def read(path: pathlib.Path) -> Tuple[List[Read], List[str]]:
    """The JSON files `path` (a file, a folder, or a zip) holds, in the order
    cal_final_score.py reads them, and the top-level entries it skips."""
    path = pathlib.Path(path)
    if path.is_dir():
        return _walk(path, f"{path}/")
    if not path.is_file():
        raise InputError(path, "an eval_results.json, a folder of them, or their zip",
                         "no such file or folder")
    if zipfile.is_zipfile(path):
        with _extracted(path) as folder:
            return _walk(folder, f"{path}:")
    return [_load(path, str(path))], []
