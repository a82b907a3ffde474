"""WorldScore's two official JSON files: an instance's evaluation.json and worldscore.json.

evaluation.json (evaluator.py::process_batch): `{aspect: {metric: {"score": raw,
"score_normalized": n}}}`, aspects in the evaluator's aspect-list order, written with
`json.dump(..., indent=4)`; raw is a number, or a list for camera_error [rot°, trans] and
motion_smoothness [mse, ssim, lpips]. worldscore.json (run_evaluate.py::
calculate_worldscore): the 10 aspects in worldscore_list order (0, an int, for an aspect
never computed), then WorldScore-Static and WorldScore-Dynamic, `json.dump(..., indent=4)`
with no trailing newline. Floats are written as Python's json writes them (repr).
"""

import dataclasses
import json
import os
import pathlib
from typing import Dict, List, Mapping, Tuple

from benchmarks.common import sample_store
from benchmarks.common.errors import InputError
from benchmarks.worldscore import aspects
from benchmarks.worldscore import normalize

EVALUATION_JSON = "evaluation.json"
WORLDSCORE_JSON = "worldscore.json"
INDENT = 4
WORLDSCORE_KEYS = (aspects.STATIC_ASPECTS + aspects.DYNAMIC_ASPECTS
                   + (aspects.HEADLINE_STATIC, aspects.HEADLINE_DYNAMIC))

# (aspect, metric) -> (raw score, stored score_normalized), in the file's order.
Entries = Dict[Tuple[str, str], Tuple[object, float]]


def read_json(path: os.PathLike, what: str):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise InputError(path, what, f"{type(e).__name__}: {e.strerror or e}") from e
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InputError(path, f"{what} (valid JSON)", str(e)) from e


@dataclasses.dataclass
class Evaluation:
    """One evaluation.json as the official aggregation of its movement sees it."""

    entries: Entries      # what calculate_worldscore pools (before renormalisation)
    ignored: List[str]    # what it skips: other-movement or unknown aspects, empty metrics
    # Why renormalize_score raises on this file ("" when it does not): the official
    # --only_calculate_mean then leaves the file, stored score_normalized and all.
    renormalize_error: str = ""


def _renormalize_error(data: dict) -> str:
    """renormalize_score's first failure, over every aspect it knows (both movements)."""
    for aspect, metrics in data.items():
        if aspect not in aspects.BY_NAME:
            continue
        if not isinstance(metrics, dict):
            return f"{aspect} is not an object"
        for name, value in metrics.items():
            if not isinstance(value, dict) or "score" not in value:
                return f"{aspect}.{name} has no score"
            metric = aspects.METRICS.get((aspect, name))
            if metric is None:
                return f"{aspect}.{name} is not a metric of aspect_info"
            try:
                normalize.normalize(metric, value["score"])
            except ValueError as e:
                return str(e)
    return ""


def parse_evaluation(data, path, movement: str) -> Evaluation:
    """The metric entries of one evaluation.json that the official aggregation of
    `movement` pools, what it ignores (aspects of the other movement or unknown to it,
    empty metric objects, as `calculate_worldscore` does) and whether renormalize_score
    would fail on it. InputError naming `path` for anything else that is not the
    official shape."""
    shape = ('{aspect: {metric: {"score": ..., "score_normalized": ...}}} '
             "(WorldScore evaluation.json)")
    if not isinstance(data, dict):
        raise InputError(path, shape, type(data).__name__)
    entries, ignored = {}, []
    for aspect, metrics in data.items():
        if aspect not in aspects.ASPECTS_OF[movement]:
            ignored.append(f"aspect {aspect!r} (not a {movement} aspect)")
            continue
        if not isinstance(metrics, dict):
            raise InputError(path, f"{aspect}: an object of metrics", repr(metrics))
        for name, value in metrics.items():
            if not value:  # calculate_worldscore: `if not metric_score: continue`
                ignored.append(f"{aspect}.{name} (empty)")
                continue
            metric = aspects.METRICS.get((aspect, name))
            if metric is None:
                known = ", ".join(m.name for m in aspects.BY_NAME[aspect].metrics)
                raise InputError(path, f"{aspect}: metrics {known}", repr(name))
            if not isinstance(value, dict) or set(value) != {"score", "score_normalized"}:
                raise InputError(path, f'{aspect}.{name}: {{"score", "score_normalized"}}',
                                 repr(value))
            try:
                normalize.normalize(metric, value["score"])
            except ValueError as e:
                raise InputError(path, f"{aspect}.{name}.score of the official shape",
                                 str(e)) from e
            if not normalize.is_number(value["score_normalized"]):
                raise InputError(path, f"{aspect}.{name}.score_normalized as a number",
                                 repr(value["score_normalized"]))
            entries[(aspect, name)] = (value["score"], value["score_normalized"])
    return Evaluation(entries, ignored, _renormalize_error(data))


def read_evaluation(path: os.PathLike, movement: str) -> Evaluation:
    return parse_evaluation(read_json(path, "a WorldScore evaluation.json"), path, movement)


def evaluation_dict(entries: Entries) -> Dict[str, Dict[str, Dict[str, object]]]:
    data: Dict[str, Dict[str, Dict[str, object]]] = {}
    for (aspect, name), (score, score_normalized) in entries.items():
        data.setdefault(aspect, {})[name] = {"score": score,
                                             "score_normalized": score_normalized}
    return data


def _dump(path: os.PathLike, data) -> pathlib.Path:
    """`data` as json.dump(indent=4) writes it, whole or not at all (sample_store.
    atomic_file: a full disk leaves the file as it was and names it)."""
    path = pathlib.Path(path)
    with sample_store.atomic_file(path) as f:
        json.dump(data, f, indent=INDENT)
    return path


def write_evaluation(path: os.PathLike, entries: Entries) -> pathlib.Path:
    """An instance's evaluation.json as process_batch writes it (entries in order)."""
    return _dump(path, evaluation_dict(entries))


def write_worldscore(path: os.PathLike, scores: Mapping[str, object]) -> pathlib.Path:
    """worldscore.json: exactly WORLDSCORE_KEYS, in that order."""
    if tuple(scores) != WORLDSCORE_KEYS:
        raise ValueError(f"worldscore.json keys must be {WORLDSCORE_KEYS}, got {tuple(scores)}")
    return _dump(path, dict(scores))


def read_worldscore(path: os.PathLike) -> Dict[str, float]:
    """A finished worldscore.json; InputError naming the file unless it holds the 12
    official keys, each a number in [0, 100]."""
    data = read_json(path, "a WorldScore worldscore.json (--worldscore_json)")
    if not isinstance(data, dict):
        raise InputError(path, "a JSON object of aspect scores (worldscore.json)",
                         type(data).__name__)
    missing = [k for k in WORLDSCORE_KEYS if k not in data]
    extra = [k for k in data if k not in WORLDSCORE_KEYS]
    if missing or extra:
        raise InputError(path, "the keys " + ", ".join(WORLDSCORE_KEYS),
                         "; ".join(filter(None, [
                             missing and "missing " + ", ".join(missing),
                             extra and "unexpected " + ", ".join(map(repr, extra))])))
    for key, value in data.items():
        if not normalize.is_number(value) or not 0 <= value <= 100:
            raise InputError(path, f"{key} as a number in [0, 100]", repr(value))
    return {k: data[k] for k in WORLDSCORE_KEYS}
