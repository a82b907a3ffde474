"""VMBench's results.json: read the official one, write one shaped like it (spec §1, §5).

The official file is the list `create_meta_info.py` writes (each prompts.json entry of a
video that exists, plus `filepath`), to which every metric script adds one key per video:
perceptible_amplitude_score, object_integrity_score, temporal_coherence_score,
commonsense_adherence_score, motion_smoothness_score (in evaluate.sh's order). A video
a script could not read simply lacks that key. After evaluate.sh the file was last
written by motion_smoothness_score.py, with json.dump(..., indent=2).
"""

import json
import os
import pathlib
from typing import Dict, List, Mapping, Sequence

from benchmarks.common import sample_store
from benchmarks.common.errors import InputError
from benchmarks.vmbench import official_scores
from benchmarks.vmbench import prompt_suite

# The order evaluate.sh adds the keys in (PAS, OIS, TCS, CAS, MSS).
WRITE_ORDER = (official_scores.PAS, official_scores.OIS, official_scores.TCS,
               official_scores.CAS, official_scores.MSS)
INDENT = 2  # motion_smoothness_score.py, the last writer


def parse(data, path) -> List[Dict]:
    """The entries of a parsed results.json; InputError naming `path` when it is not a
    list of objects each with a string `index`, or a metric value is not a number."""
    if not isinstance(data, list):
        raise InputError(path, "a JSON list of per-video objects (VMBench results.json)",
                         type(data).__name__)
    seen = {}
    for position, entry in enumerate(data):
        if not isinstance(entry, dict):
            raise InputError(path, f"entry {position} to be an object", type(entry).__name__)
        if "index" not in entry:
            raise InputError(path, f"entry {position} to have an 'index' (the video's "
                             "prompt index, \"0001\"...)",
                             ("keys " + ", ".join(entry)) if entry else "no keys")
        index = entry["index"]
        if not isinstance(index, str):
            raise InputError(path, f"entry {position}: index as a string", repr(index))
        if index in seen:
            raise InputError(path, "each index once", f"index {index} at entries "
                             f"{seen[index]} and {position}")
        seen[index] = position
        for key in official_scores.OFFICIAL_KEYS + official_scores.METRIC_KEYS:
            if key in entry and not official_scores.is_number(entry[key]):
                raise InputError(path, f"entry {position} (index {index}): {key} as a number",
                                 repr(entry[key]))
    return data


def read(path: pathlib.Path) -> List[Dict]:
    return parse(prompt_suite.read_json(path, "a VMBench results.json (--results_json)"),
                 path)


def entry_for(prompt_entry: Mapping, filepath: os.PathLike,
              values: Mapping[str, float]) -> Dict:
    """One video's object: the prompts.json entry, `filepath` (absolute, as
    create_meta_info.py writes it), then the metric keys computed, in evaluate.sh order."""
    entry = dict(prompt_entry)
    entry["filepath"] = os.path.abspath(filepath)
    for key in WRITE_ORDER:
        if key in values:
            entry[key] = values[key]
    return entry


def write(path: pathlib.Path, entries: Sequence[Mapping]) -> pathlib.Path:
    """results.json as the official scripts leave it (indent 2), whole or not at all
    (sample_store.atomic_file: a full disk leaves the file as it was and names it)."""
    path = pathlib.Path(path)
    with sample_store.atomic_file(path) as f:
        json.dump(list(entries), f, indent=INDENT)
    return path
