"""Importing official WorldScore results into a scorecard (scope IMPORTED_OFFICIAL_RESULTS).

Two sources: a worldscore_output tree of per-instance evaluation.json files, from which
worldscore.json is recomputed as `run_evaluate.py --only_calculate_mean True` would
(recompute.py; the tree is never written to), or a finished worldscore.json (model-level
values only). Coverage is against the dataset's 2,000 static + 1,000 dynamic instances
(2,000 for a 3D model, which the official protocol runs static only), by id when
--data_root gives the dataset's json files.
"""

import dataclasses
import pathlib
from typing import Dict, List, Optional

from benchmarks.common import engine
from benchmarks.common import gate
from benchmarks.common import scorecard as card_lib
from benchmarks.common import trust
from benchmarks.worldscore import aggregate
from benchmarks.worldscore import aspects
from benchmarks.worldscore import dataset
from benchmarks.worldscore import import_samples
from benchmarks.worldscore import metric_specs
from benchmarks.worldscore import official_json
from benchmarks.worldscore import recompute
from proto import scorecard_pb2

BENCHMARK_ID = "worldscore"
BENCHMARK_VERSION = "worldscore/1"
CALIBRATION = "benchmarks/worldscore/calibration/official_aggregation.json"


def _backend(what: str, recomputed: bool) -> scorecard_pb2.Backend:
    note = ("official per-instance scores renormalised and aggregated by worldeval as "
            "run_evaluate --only_calculate_mean does" if recomputed else
            "values read from the official worldscore.json, not recomputed")
    parity = (trust.verified(CALIBRATION + " (official calculate_worldscore and "
                             "renormalize_score run on the test tree)",
                             "normalisation and aggregation of evaluation.json files")
              if recomputed else trust.verified("the official worldscore.json, read as "
                                                "written", "the values are the official "
                                                "implementation's"))
    return scorecard_pb2.Backend(
        name=f"imported: WorldScore {what}", official=True, note=note, parity=parity,
        digest_pinned=True, implementation=f"official haoyi-duan/WorldScore ({what})")


@dataclasses.dataclass
class Imported:
    card: scorecard_pb2.Scorecard
    samples: List[scorecard_pb2.SampleScore]
    worldscore: Dict[str, object]   # worldscore.json's dict, to write


def _movements(static_only: bool):
    return [aspects.STATIC] if static_only else list(aspects.VISUAL_MOVEMENTS)


def _value(spec, value, backend, count=0) -> scorecard_pb2.MetricResult:
    result = card_lib.unavailable(spec, "", backend)
    result.available, result.value, result.sample_count = True, float(value), count
    return result


def _card(model_name: str) -> scorecard_pb2.Scorecard:
    return scorecard_pb2.Scorecard(benchmark_id=BENCHMARK_ID, model_name=model_name,
                                   benchmark_version=BENCHMARK_VERSION)


def _tree_metrics(rec: recompute.Recomputed, static_only: bool, backend) -> list:
    counts = {key: len(v) for pools in rec.pools.values() for key, v in pools.items()}
    means = {key: m for pools in rec.pools.values()
             for key, m in aggregate.metric_means(pools).items()}
    metrics = []
    for a in aspects.ASPECTS:
        spec = metric_specs.BY_ID[a.name]
        keys = [(a.name, m.name) for m in a.metrics if (a.name, m.name) in counts]
        if keys:
            metrics.append(_value(spec, rec.worldscore[a.name], backend,
                                  max(counts[k] for k in keys)))
        else:
            why = ("3D model: the official protocol evaluates static only"
                   if static_only and a.movement == aspects.DYNAMIC else
                   f"no {a.movement}/ folder" if a.movement in rec.missing_movements
                   else f"no {a.movement} instance's evaluation.json has it")
            metrics.append(card_lib.unavailable(
                spec, f"{why}; worldscore.json holds 0 for it, as the official code writes",
                backend))
    for spec in metric_specs.HEADLINE_SPECS:
        metrics.append(_value(spec, rec.worldscore[spec.id], backend))
    for spec in metric_specs.METRIC_SPECS:
        key = tuple(spec.id.split(".", 1))
        metrics.append(_value(spec, means[key], backend, counts[key]) if key in counts
                       else card_lib.unavailable(spec, "no evaluation.json has it", backend))
    return metrics


def _coverage(card, rows, expected_ids, movements):
    found = [r.sample_id for r in rows]
    source = ("the dataset's json files (--data_root)" if expected_ids is not None else
              "the dataset's sizes: " + " + ".join(
                  f"{aspects.EXPECTED_INSTANCES[m]:,} {m}" for m in movements)
              + " (ids unknown without --data_root)")
    card.coverage.CopyFrom(card_lib.coverage(expected_ids or [], found, rows, source))
    if expected_ids is None:
        card.coverage.expected = sum(aspects.EXPECTED_INSTANCES[m] for m in movements)


def from_tree(generated_root: pathlib.Path, model_name: str, static_only: bool,
              data_root: Optional[pathlib.Path] = None) -> Imported:
    """The scorecard of a tree of official evaluation.json files."""
    rec = recompute.recompute(generated_root, static_only)
    movements = _movements(static_only)
    entries = ({m: dataset.load(data_root, m) for m in movements}
               if data_root is not None else None)
    rows = import_samples.samples(rec, entries, data_root)
    absent = (import_samples.missing_rows(rec, entries, generated_root, data_root)
              if entries is not None else [])
    card = _card(model_name)
    backend = _backend("evaluation.json files", True)
    card.metrics.extend(_tree_metrics(rec, static_only, backend))
    refused = import_samples.refused(rec)
    for result in card.metrics:
        card_lib.record_refused(result, refused.get(result.id, {}))
    expected = ([e.key for m in movements for e in entries[m]]
                if entries is not None else None)
    _coverage(card, rows, expected, movements)
    notes = []
    counts = [gate.Count(str(dataset.json_path(data_root, m)), len(entries[m]),
                         aspects.EXPECTED_INSTANCES[m], "entries")
              for m in movements if entries is not None]
    cov = card.coverage
    unknown = [] if entries is not None or cov.evaluated >= cov.expected else [
        card_lib.blocker(scorecard_pb2.INCOMPLETE_COVERAGE,
                         f"{cov.evaluated} of {cov.expected} instances evaluated without "
                         "error (which are missing is unknown without --data_root)")]
    pooled_errors = [r.sample_id for r in rows if r.error and r.metrics]
    if pooled_errors:
        notes.append(f"{len(pooled_errors)} instance(s) with errors still in "
                     "worldscore.json (calculate_worldscore reads every evaluation.json): "
                     + ", ".join(pooled_errors[:5]))
    for movement in rec.missing_movements:
        notes.append(f"{generated_root}/{movement}: no such folder (the official "
                     "run_evaluate stops there); its aspects are 0 in worldscore.json")
    notes += rec.checks.notes()
    mismatches = recompute.stored_mismatches(rec.results)
    if mismatches:
        notes.append(f"{len(mismatches)} stored score_normalized values differ from the "
                     "renormalised ones (worldscore.json uses the renormalised): "
                     + "; ".join(mismatches[:3]))
    if static_only and (pathlib.Path(generated_root) / aspects.DYNAMIC).is_dir():
        notes.append(f"{generated_root}/dynamic: ignored (static only, as run_evaluate "
                     "does for a 3D model; --nostatic_only to include it)")
    if static_only:
        notes.append("3D model: static only; the 3 dynamic aspects are 0 and "
                     "WorldScore-Dynamic = 0.7 x WorldScore-Static, as officially")
    return _finish(card, rows + absent, rec.worldscore, notes,
                   gate.Facts(counts=counts, coverage=unknown))


def from_worldscore_json(path: pathlib.Path, model_name: str, static_only: bool) -> Imported:
    """The scorecard of a finished worldscore.json (model-level values only)."""
    values = official_json.read_worldscore(path)
    card = _card(model_name)
    backend = _backend("worldscore.json", False)
    card.metrics.extend(_value(spec, values[spec.id], backend)
                        for spec in metric_specs.ASPECT_SPECS + metric_specs.HEADLINE_SPECS)
    card.metrics.extend(card_lib.unavailable(spec, f"{path.name} holds aspects only", backend)
                        for spec in metric_specs.METRIC_SPECS)
    movements = _movements(static_only)
    _coverage(card, [], None, movements)
    notes = ["worldscore.json only: model-level values, no per-instance rows; coverage "
             "unknown"]
    static, dynamic = aggregate.headlines(values)
    for key, mine in ((aspects.HEADLINE_STATIC, static), (aspects.HEADLINE_DYNAMIC, dynamic)):
        if values[key] != mine:
            notes.append(f"{path.name}: {key} is {values[key]}, the official formula on its "
                         f"aspects gives {mine}")
    return _finish(card, [], values, notes, gate.Facts())


def _finish(card, rows, worldscore, notes, facts: gate.Facts) -> Imported:
    """The gate on the import: the leaderboard's aspects and headlines are required."""
    facts = dataclasses.replace(facts, required=[s.id for s in metric_specs.TABLE.leaderboard])
    card.verification.CopyFrom(gate.assess_import(card, facts, "instances",
                                                  per_sample=bool(rows)))
    card.notes.extend(notes)
    return Imported(card, rows, worldscore)


def write_outputs(out_dir: pathlib.Path, imported: Imported,
                  inputs: Optional[dict] = None) -> scorecard_pb2.Scorecard:
    """scorecard.json, worldscore.json, and (from a tree) per_sample_scores.jsonl and
    raw_metric_table.jsonl (engine.write_import; `inputs`: for provenance)."""

    def official(out):
        return {"worldscore_json": str(official_json.write_worldscore(
            out.path(official_json.WORLDSCORE_JSON), imported.worldscore))}

    return engine.write_import(engine.Imported(
        imported.card, imported.samples, [s.id for s in metric_specs.METRIC_SPECS], official),
        out_dir, inputs or {})
