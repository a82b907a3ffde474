"""worldscore.json recomputed from a tree's evaluation.json files, as
`run_evaluate.py --only_calculate_mean True` does (spec §5.3, §6).

Per movement (static only for a 3D model): every instance folder in the official walk
order. Where `Evaluator.data_exists` holds and evaluation.json parses, its scores are
renormalised from `score` (renormalize_score); the official aggregation then pools every
evaluation.json it finds, so an instance data_exists rejects still counts with the
`score_normalized` stored in its file. Everything the official code skips or crashes on
is named: each instance ends with its pooled values, or an error naming the file.
"""

import dataclasses
import os
import pathlib
from typing import Dict, List, Mapping, Optional, Tuple

from benchmarks.common.errors import InputError
from benchmarks.common.metric_table import ValueChecks
from benchmarks.worldscore import aggregate
from benchmarks.worldscore import aspects
from benchmarks.worldscore import layout
from benchmarks.worldscore import metric_specs
from benchmarks.worldscore import normalize
from benchmarks.worldscore import official_json


@dataclasses.dataclass
class InstanceResult:
    instance: layout.Instance
    entries: Optional[official_json.Entries] = None  # as read
    pooled: Dict[Tuple[str, str], float] = dataclasses.field(default_factory=dict)
    renormalized: bool = False
    error: str = ""                 # why nothing of it is pooled
    notes: List[str] = dataclasses.field(default_factory=list)
    # (aspect, metric) -> why its value is refused (metric_table.ValueChecks): a raw
    # score that is not finite, or a score_normalized pooled as stored outside [0, 1].
    refused: Dict[Tuple[str, str], str] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class Recomputed:
    results: Dict[str, List[InstanceResult]]   # movement -> instances, walk order
    pools: Dict[str, aggregate.Pools]
    worldscore: Dict[str, object]
    missing_movements: List[str]               # expected, no <movement>/ folder
    checks: Optional[ValueChecks] = None       # what was refused, for the notes


def _refusal(checks: ValueChecks, path, key, score, stored) -> Optional[str]:
    """Why an entry may not be pooled: a raw score (each component) that is not finite
    (renormalize_score would clip a NaN to a valid-looking end of the range), or, where
    the stored score_normalized is what is pooled, one outside the table's [0, 1]."""
    mid = metric_specs.metric_id(*key)
    for part in (score if isinstance(score, (list, tuple)) else [score]):
        why = checks.check_finite(f"{path}", f"{mid} score", part)
        if why:
            return why
    return None if stored is None else checks.check(f"{path}", mid, stored)


def _instance(inst: layout.Instance, checks: ValueChecks) -> InstanceResult:
    result = InstanceResult(layout.check(inst))
    path = inst.path / official_json.EVALUATION_JSON
    if not path.is_file():
        result.error = f"{path}: expected the instance's evaluation.json, found no such file"
        return result
    try:
        evaluation = official_json.read_evaluation(path, inst.movement)
    except InputError as e:
        result.error = str(e)
        return result
    result.entries = evaluation.entries
    result.notes += [f"{path}: ignored {what}" for what in evaluation.ignored]
    result.renormalized = inst.exists and not evaluation.renormalize_error
    for key, (score, stored) in evaluation.entries.items():
        refused = _refusal(checks, path, key, score, None if result.renormalized else stored)
        if refused:
            result.refused[key] = refused
            continue
        result.pooled[key] = (normalize.normalize(aspects.METRICS[key], score)
                              if result.renormalized else stored)
    if not inst.exists:
        result.notes.append(
            f"{path}: pooled with its stored score_normalized (the official aggregation "
            "reads it; data_exists rejects the instance, so it is not renormalised)")
    elif evaluation.renormalize_error:
        result.notes.append(
            f"{path}: pooled with its stored score_normalized (the official "
            f"renormalize_score fails on it: {evaluation.renormalize_error})")
    return result


def recompute(generated_root: os.PathLike, static_only: bool) -> Recomputed:
    """The official aggregation of `generated_root` (a worldscore_output folder)."""
    root = pathlib.Path(generated_root)
    if not root.is_dir():
        raise InputError(root, "a WorldScore output folder holding static/ (and dynamic/)",
                         "no such folder")
    movements = [aspects.STATIC] if static_only else list(aspects.VISUAL_MOVEMENTS)
    results, pools, missing = {}, {}, []
    checks = ValueChecks(metric_specs.TABLE)
    for movement in movements:
        if not (root / movement).is_dir():
            missing.append(movement)
            continue
        results[movement] = [_instance(i, checks) for i in layout.walk(root, movement)]
        pools[movement] = aggregate.pool(r.pooled for r in results[movement] if not r.error)
    if not results:
        raise InputError(root, "a WorldScore output folder holding " + " and ".join(
            f"{m}/" for m in movements), "none of them")
    return Recomputed(results, pools, aggregate.worldscore(pools), missing, checks)


def stored_mismatches(results: Mapping[str, List[InstanceResult]]) -> List[str]:
    """Renormalised values that differ from those stored in evaluation.json (a file
    written with other constants, or edited)."""
    out = []
    for instances in results.values():
        for r in instances:
            if r.renormalized and r.entries:
                out += [f"{r.instance.key} {a}.{m}: stored {stored!r}, renormalised "
                        f"{r.pooled[(a, m)]!r}" for (a, m), (_, stored) in r.entries.items()
                        if (a, m) in r.pooled and stored != r.pooled[(a, m)]]
    return out
