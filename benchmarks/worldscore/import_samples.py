"""Per-instance rows of an import: what each evaluation.json gave, and every error.

One SampleScore per generated instance folder (sample id = its path below
worldscore_output/, split = static|dynamic, scene = style/scene or motion type), holding
the normalised value pooled for each metric and its raw score. Error rows: an instance
whose evaluation.json is missing or not the official shape (nothing of it pooled); an
instance the official completeness rules reject, or no dataset entry asks for (its
values are still pooled, as calculate_worldscore reads every evaluation.json: the row
says so); a dataset entry with no generated folder (given --data_root).
"""

from typing import Dict, List, Optional, Sequence

from benchmarks.worldscore import aspects
from benchmarks.worldscore import dataset
from benchmarks.worldscore import metric_specs
from benchmarks.worldscore import recompute
from proto import scorecard_pb2

POOLED_ANYWAY = "pooled_in_worldscore_json"
WARNINGS = "input_warnings"


def _sample(result: recompute.InstanceResult) -> scorecard_pb2.SampleScore:
    inst = result.instance
    sample = scorecard_pb2.SampleScore(sample_id=inst.key, split=inst.movement,
                                       scene="/".join(inst.parts[:2]))
    errors = ([result.error] if result.error else []) + inst.problems + inst.crashes
    if errors:
        sample.error = "; ".join(errors)
    if inst.warnings or result.notes:
        sample.diagnostics[WARNINGS] = "; ".join(inst.warnings + result.notes)
    for (aspect, name), value in result.pooled.items():
        sample.metrics[metric_specs.metric_id(aspect, name)] = value
        raw = result.entries[(aspect, name)][0]
        raw = raw if isinstance(raw, (list, tuple)) else [raw]
        for rid, v in zip(metric_specs.raw_ids(aspects.METRICS[(aspect, name)]), raw):
            sample.metrics[rid] = v
    if result.pooled and sample.error:
        sample.diagnostics[POOLED_ANYWAY] = (
            "yes: the official aggregation reads every evaluation.json in the tree")
    if not result.pooled:
        for a in aspects.ASPECTS_OF[inst.movement]:
            for m in aspects.BY_NAME[a].metrics:
                sample.unavailable[metric_specs.metric_id(a, m.name)] = (
                    result.error or "not in this instance's evaluation.json")
    elif result.entries is not None:
        _absent_metrics(sample, result)
    for (aspect, name), reason in result.refused.items():  # not finite or out of range
        sample.unavailable[metric_specs.metric_id(aspect, name)] = reason
    return sample


def refused(recomputed: recompute.Recomputed) -> Dict[str, Dict[str, str]]:
    """{metric id: {"split/instance": reason}} of the values refused (recompute)."""
    out: Dict[str, Dict[str, str]] = {}
    for movement, results in recomputed.results.items():
        for result in results:
            for key, reason in result.refused.items():
                out.setdefault(metric_specs.metric_id(*key), {})[
                    f"{movement}/{result.instance.key}"] = reason
    return out


def _absent_metrics(sample, result) -> None:
    inst = result.instance
    layouts = (inst.image_data or {}).get("camera_path") or [None]
    intra = aspects.LAYOUT_TYPES.get(layouts[0]) == "intra"
    for a in aspects.ASPECTS_OF[inst.movement]:
        for m in aspects.BY_NAME[a].metrics:
            mid = metric_specs.metric_id(a, m.name)
            if (a, m.name) in result.pooled:
                continue
            sample.unavailable[mid] = (
                "as in the official code: skipped for an intra layout "
                f"({layouts[0]})" if intra and a in aspects.SKIPPED_FOR_INTRA
                else "not in this instance's evaluation.json")


def samples(recomputed: recompute.Recomputed,
            entries: Optional[Dict[str, Sequence[dataset.Entry]]] = None,
            data_root=None) -> List[scorecard_pb2.SampleScore]:
    """Rows of every instance walked, then of every dataset entry not generated."""
    rows = []
    for movement, results in recomputed.results.items():
        wanted = {e.key: e for e in (entries or {}).get(movement, ())}
        for result in results:
            row = _sample(result)
            if entries is not None and row.sample_id not in wanted:
                row.error = "; ".join(filter(None, [row.error, (
                    f"{result.instance.path}: expected a folder of an entry of "
                    f"{dataset.json_path(data_root, movement)}, found no entry for it")]))
                if row.metrics:
                    row.diagnostics[POOLED_ANYWAY] = (
                        "yes: the official aggregation reads every evaluation.json")
            elif entries is not None and movement == aspects.DYNAMIC:
                problems = dataset.mask_problems(data_root, wanted[row.sample_id])
                if problems:
                    row.error = "; ".join(filter(None, [row.error] + problems))
            rows.append(row)
    return rows


def missing_rows(recomputed: recompute.Recomputed,
                 entries: Dict[str, Sequence[dataset.Entry]],
                 generated_root, data_root) -> List[scorecard_pb2.SampleScore]:
    """Error rows of the dataset entries with no generated instance folder."""
    rows = []
    for movement, movement_entries in entries.items():
        found = [r.instance.key for r in recomputed.results.get(movement, ())]
        absent, _ = dataset.cross_check(movement_entries, found)
        by_key = {e.key: e for e in movement_entries}
        for key in absent:
            rows.append(scorecard_pb2.SampleScore(
                sample_id=key, split=movement, error=(
                    f"{generated_root}/{key}: expected the generated folder of entry "
                    f"{by_key[key].position} of {dataset.json_path(data_root, movement)}, "
                    "found no such folder")))
    return rows
