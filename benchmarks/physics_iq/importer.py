"""Importing one model's official Physics-IQ metrics CSV (`{O}/results/{model}.csv`,
spec §8) into a scorecard (scope IMPORTED_OFFICIAL_RESULTS), the Physics-IQ score
recomputed from it as code/calculate_iq_score.py computes it (spec §9, iq_score.py).

What is read and what is computed:
  - csv_file.read_csv parses the file strictly (a malformed cell, a missing or unknown
    column: InputError naming file, row and column, exit 2);
  - every value of every cell (each frame of a list) is held to its metric's official
    range (metric_specs.TABLE through metric_table.ValueChecks: the IoUs and the [0, 1]
    BGR MSEs, take-1, take-2 and the physical variance alike). Upstream's tool cannot
    write a value outside, and the score is one set-level number over every cell, so one
    such value refuses the whole file, every such cell named (file, row, column, frame);
    NaN and infinities are already refused by read_csv;
  - the five metrics of the original track's table are calculate_iq_score's: the score
    and the model means ST, SP, WS, MSE (iq_score.IQScore);
  - one row per (scenario, view) of the CSV, split "generated", holding the four per-view
    columns sample.py gives a run's rows (the mean over frames of the take-1 lists, the
    take-1 scalars) and, in diagnostics, the 12 values as sample.py stores them.

Sample ids. The CSV names scenarios, not the ids upstream's renaming puts on the
generated files (`{id}_{view}_{scenario}`, sample.py). With --descriptions the ids are
read from it (its take-1 row of each (scenario, view)): the rows get the runner's sample
ids, every view the descriptions list and the CSV lacks is named missing, and the file is
checked against the official descriptions.csv as the runner checks it (card.py). Without
it the id is `{view}_{scenario}` (the runner's id less its `{id}_` prefix), coverage is a
count against the official suite's 198 views, and a CSV with another count is not the
official data (upstream's own run of the official suite writes all 66 scenarios: it stops
on a missing video, run_physics_iq.py:154-171).
"""

import hashlib
import json
import pathlib
from typing import Dict, List, Optional, Tuple

from benchmarks.common import engine
from benchmarks.common import gate
from benchmarks.common import outputs as outputs_lib
from benchmarks.common import scorecard as card_lib
from benchmarks.common import trust
from benchmarks.common.errors import InputError
from benchmarks.common.metric_table import ValueChecks
from benchmarks.physics_iq import card as card_parts
from benchmarks.physics_iq import csv_file, iq_score, metric_specs
from benchmarks.physics_iq import layout as layout_lib
from benchmarks.physics_iq import sample as sample_lib
from proto import scorecard_pb2

BENCHMARK_ID, BENCHMARK_VERSION = metric_specs.BENCHMARK_ID, metric_specs.BENCHMARK_VERSION
SPLIT = sample_lib.SPLIT
_LISTED = 10
# The metric whose official range holds each CSV key's values (spec §7: IoUs, [0, 1] MSEs).
RANGE_OF = {
    "v1_mse": "mse", "v2_mse": "mse", "variance_mse": "mse",
    "spatiotemporal_iou_v1": "spatiotemporal_iou", "spatiotemporal_iou_v2": "spatiotemporal_iou",
    "variance_spatiotemporal_iou": "spatiotemporal_iou",
    "spatial_iou_v1": "spatial_iou", "spatial_iou_v2": "spatial_iou",
    "variance_spatial": "spatial_iou",
    "weighted_spatial_iou_v1": "weighted_spatial_iou",
    "weighted_spatial_iou_v2": "weighted_spatial_iou",
    "variance_weighted_spatial": "weighted_spatial_iou",
}
assert set(RANGE_OF) == set(csv_file.KEYS)

BACKEND = scorecard_pb2.Backend(
    name="imported: Physics-IQ metrics CSV; calculate_iq_score recomputed",
    official=True, digest_pinned=True,
    implementation="benchmarks/physics_iq/iq_score.py over the official CSV "
                   "(read as pandas 2.3.3 reads it)",
    note="the per-view values are the official CSV's as written; the score and the model "
         "means are calculate_iq_score.py's arithmetic recomputed from them",
    parity=trust.verified(
        "//benchmarks/physics_iq:importer_test (upstream e457754's CSVs in "
        "benchmarks/physics_iq/testdata/official_tree and its printed scores)",
        "weight-free: calculate_iq_score's score and second return value with =="))


def _where(path, row_no: int, key: str, view: str) -> str:
    return f"{path}: row {row_no} (line {row_no + 1}), column {csv_file.column(key, view)}"


def _check_ranges(path, rows: List[csv_file.ScenarioRow], checks: ValueChecks) -> None:
    """InputError naming every cell (and frame) outside its metric's official range."""
    bad = []
    for row_no, row in enumerate(rows, start=1):
        for view in csv_file.VIEWS:
            for key in csv_file.KEYS:
                value, where = row.views[view][key], _where(path, row_no, key, view)
                if key in csv_file.LIST_KEYS:
                    bad += [r for k, v in enumerate(value) if (r := checks.check(
                        f"{where}, frame {k}", RANGE_OF[key], v))]
                elif reason := checks.check(where, RANGE_OF[key], value):
                    bad.append(reason)
    if bad:
        raise InputError(path, "every value within its metric's official range (upstream "
                         f"writes no other; {len(bad)} cell values are not)",
                         "; ".join(bad[:_LISTED]) + (" ..." if len(bad) > _LISTED else ""))


def _ids(descriptions, path, rows) -> Tuple[Dict[Tuple[str, str], str], List[str],
                                            List[str]]:
    """({(scenario, view): sample id}, the expected ids, not-official-data reasons)."""
    if descriptions is None:
        ids = {(r.scenario, v): f"{v}_{r.scenario}" for r in rows for v in csv_file.VIEWS}
        return ids, [], []
    table, problems = layout_lib.read_descriptions(descriptions)
    if problems:
        raise InputError(descriptions, "the descriptions CSV (spec §1)",
                         "; ".join(str(p) for p in problems[:_LISTED]))
    take1 = {(r.scenario, r.view): r.id for r in table if r.take == "take-1"}
    expected = [f"{i}_{view}_{scenario}" for (scenario, view), i in take1.items()]
    ids = {}
    for row_no, row in enumerate(rows, start=1):
        for view in csv_file.VIEWS:
            if (row.scenario, view) not in take1:
                raise InputError(f"{path}: row {row_no} (line {row_no + 1}), column "
                                 f"{csv_file.SCENARIO}", f"a scenario {descriptions} has "
                                 "a take-1 row for in every view", f"{row.scenario!r} "
                                 f"has none in {view}")
            ids[row.scenario, view] = f"{take1[row.scenario, view]}_{view}_{row.scenario}"
    why = []
    digest = hashlib.sha256(pathlib.Path(descriptions).read_bytes()).hexdigest()
    if digest not in card_parts.OFFICIAL_DESCRIPTIONS:
        why.append(f"{descriptions} is none of the official descriptions files ("
                   + ", ".join(card_parts.OFFICIAL_DESCRIPTIONS.values()) + ")")
    elif len(expected) != card_parts.OFFICIAL_VIEWS:
        why.append(f"{len(expected)} views, the official suite has "
                   f"{card_parts.OFFICIAL_VIEWS}")
    return ids, expected, why


def _samples(path, rows, ids) -> List[scorecard_pb2.SampleScore]:
    """One row per (scenario, view), laid out as sample.py lays out a run's rows."""
    out = []
    for row_no, row in enumerate(rows, start=1):
        for view in csv_file.VIEWS:
            values = row.views[view]
            sample = scorecard_pb2.SampleScore(sample_id=ids[row.scenario, view], split=SPLIT)
            sample.diagnostics.update({"scenario": row.scenario, "view": view,
                                       "source": f"{path}: row {row_no}"})
            for key in csv_file.KEYS:
                sample.diagnostics[sample_lib.VALUES + key] = json.dumps(values[key])
            for column, key, is_list in sample_lib.COLUMNS:
                value = values[key]
                sample.metrics[column] = sum(value) / len(value) if is_list else value
            out.append(sample)
    return out


def import_csv(path, model_name: str, descriptions=None) -> engine.Imported:
    """The scorecard and rows of the official metrics CSV at `path` (`descriptions`: the
    descriptions.csv it was run with, for the sample ids and coverage; optional).

    Raises:
      InputError: an unreadable or malformed file (naming file, row and column), a value
        outside its metric's official range, a scenario the descriptions do not list.
    """
    path = pathlib.Path(path)
    rows = csv_file.read_csv(path)
    content = path.read_bytes()
    if not rows:
        raise InputError(path, csv_file.EXPECTED + " and at least one scenario row",
                         "the header only")
    checks = ValueChecks(metric_specs.TABLE)
    _check_ranges(path, rows, checks)
    try:
        score = iq_score.calculate_iq_score(rows)
    except iq_score.ScoreError as e:
        raise InputError(path, "rows calculate_iq_score can score", str(e)) from e
    ids, expected, not_official = _ids(descriptions, path, rows)
    samples = _samples(path, rows, ids)
    found = [s.sample_id for s in samples]
    missing = {f"{SPLIT}/{i}": f"not in {path} (calculate_iq_score scored the other views)"
               for i in sorted(set(expected) - set(found))}
    card = scorecard_pb2.Scorecard(benchmark_id=BENCHMARK_ID, model_name=model_name,
                                   benchmark_version=BENCHMARK_VERSION)
    card.metrics.extend(card_parts.metric_results(
        score, BACKEND, len(samples), len(samples) + len(missing), missing))
    notes = [f"the official metrics CSV of {len(rows)} scenarios ({len(samples)} views); "
             "the Physics-IQ score and its four components are calculate_iq_score.py's "
             "arithmetic recomputed here from it (iq_score.py); the per-view rows are the "
             "CSV's values as written", card_parts.score_note(score)]
    facts = gate.Facts(not_official_data=not_official)
    if descriptions is not None:
        card.coverage.CopyFrom(card_lib.coverage(expected, found, samples, str(descriptions)))
    else:
        official = card_parts.OFFICIAL_VIEWS
        card.coverage.CopyFrom(card_lib.coverage(found, found, samples, str(path)))
        card.coverage.expected = official
        card.coverage.expected_source = (f"the official suite's {official} views (a count: "
                                         "the CSV names no ids; --descriptions names them)")
        gaps = ([card_lib.blocker(scorecard_pb2.INCOMPLETE_COVERAGE, (
            f"{path} has {len(samples)} of the official {official} views; which are "
            "missing is unknown without --descriptions"))] if len(samples) < official else [])
        facts = gate.Facts(counts=[gate.Count(str(path), len(samples), official, "views")],
                           coverage=gaps)
        notes.append("sample ids are {view}_{scenario}: the CSV does not hold the "
                     "{id}_ prefix of upstream's renamed files (--descriptions gives it); "
                     "the scenario names were not checked against descriptions.csv")
    card.verification.CopyFrom(gate.assess_import(
        card, facts, "views", detail="imported from the official metrics CSV; worldeval "
        "recomputed only calculate_iq_score's arithmetic over it (no video was read)"))
    notes.extend(checks.notes())
    card.notes.extend(notes)

    def write_official(out: outputs_lib.RunOutputs) -> Dict[str, str]:
        """The CSV as read, byte for byte, where the runner writes its own."""
        target = out.path(metric_specs.CSV_FILE.replace("<model>", model_name))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        return {"metrics_csv": str(target)}

    return engine.Imported(card, samples, sorted(c for c, _, _ in sample_lib.COLUMNS),
                           write_official)


def write_outputs(out_dir, imported: engine.Imported, inputs: Optional[dict] = None
                  ) -> scorecard_pb2.Scorecard:
    """scorecard.json, per_sample_scores.jsonl, raw_metric_table.jsonl and the CSV copied
    as results/<model>.csv (engine.write_import; `inputs`: for provenance)."""
    return engine.write_import(imported, out_dir, inputs or {})
