"""Importing official MemoBench results into one scorecard; nothing is recomputed.

Sources, alone or together (scope IMPORTED_OFFICIAL_RESULTS):
  - Step 1: an eval_*.csv of run_eval.py (spec §5); raw columns kept as "raw:<column>";
  - ORS: an ors_scores.csv of compute_ors.py (§6); raw columns kept as "raw_ors:<column>";
  - VQA: one model's folder of llm-vqa.py per-clip CSVs (§7);
  - a leaderboard.csv of leaderboard.py (§8): model-level values only, no per-clip rows.
Per-clip rows are merged by (split, clip id) into one SampleScore per clip, each value on
its file's scale (ORS and VQA 0-1, as compute_ors.py and llm-vqa.py write them). Every
leaderboard metric's value is leaderboard.aggregate_model on the same frames, so an
import gives the leaderboard's numbers exactly (CameraControllability's x100 heuristic
included, then noted). Coverage and blockers say, step by step, which clips were present.
"""

import dataclasses
import math
import pathlib
from typing import Optional

import pandas as pd

from benchmarks.common import engine
from benchmarks.common import gate
from benchmarks.common import scorecard as card_lib
from benchmarks.common import trust
from benchmarks.common.errors import InputError
from benchmarks.memobench import leaderboard
from benchmarks.memobench import import_rows as rows_lib
from benchmarks.memobench import leaderboard_files as files_lib
from benchmarks.memobench import metric_specs
from benchmarks.memobench import verification
from proto import scorecard_pb2

_NOT_RECOMPUTED = "values read from the official output, not recomputed by worldeval"


def _imported(script: str, note: str) -> scorecard_pb2.Backend:
    """An imported step's backend: the official tool's own numbers, as it wrote them (so
    parity holds by construction; worldeval loaded no checkpoint to pin)."""
    return scorecard_pb2.Backend(
        name=f"imported: MemoBench {script} output", official=True, note=note,
        parity=trust.verified(f"the official {script}'s own output file, read as written",
                              "the values are the official implementation's"),
        digest_pinned=True, implementation=f"official MemoBench {script} (its output file)")


BACKENDS = {
    "eval": _imported("run_eval.py", _NOT_RECOMPUTED),
    "ors": _imported("compute_ors.py", _NOT_RECOMPUTED),
    "vqa": _imported("llm-vqa.py", _NOT_RECOMPUTED),
    "leaderboard": _imported(
        "leaderboard.py", "model-level value from leaderboard.csv, as printed (4 decimals)"),
}
_SOURCE_FLAGS = {"eval": "--eval_csv or --eval_dir", "ors": "--ors_dir", "vqa": "--vqa_dir"}


def _model_level(spec, value: float, backend) -> scorecard_pb2.MetricResult:
    result = card_lib.unavailable(spec, "", backend)
    result.available, result.value = True, float(value)
    return result


def _from_step(spec, kind, step: files_lib.StepResults, row: dict, samples, notes):
    """One metric from a step's file: leaderboard.py's value, counts from the same column."""
    backend = BACKENDS[kind]
    if not spec.leaderboard:
        return card_lib.aggregate(spec, samples, backend,
                                  unavailable_reason=f"no values in {step.path.name}",
                                  record_coverage=False)
    column = {"eval": leaderboard.eval_column(spec.id, step.frame.columns),
              "ors": "ors" if "ors" in step.frame.columns else None,
              "vqa": spec.id if spec.id in step.frame.columns else None}[kind]
    value = row.get(spec.id, math.nan)
    if column is None or pd.isna(value):
        where = f"no column {column or spec.id}" if column is None else "no values"
        return card_lib.unavailable(spec, f"{where} in {step.path.name}", backend)
    result = card_lib.aggregate(spec, samples, backend, record_coverage=False)
    result.available, result.value = True, float(value)
    result.ClearField("unavailable_reason")
    result.sample_count = int(step.frame[column].notna().sum())
    scale = 100 if kind in ("ors", "vqa") else 1  # per-clip values are the files' 0-1 ones
    if spec.id == "CameraControllability" and leaderboard.camera_heuristic_applies(
            float(step.frame[column].mean())):
        scale = 100
        notes.append("CameraControllability mean < 1: multiplied by 100 as leaderboard.py "
                     "does (a file holding the raw 0-1 value); per-clip values are as read")
    if result.HasField("ci95"):
        result.ci95.low, result.ci95.high = result.ci95.low * scale, result.ci95.high * scale
    return result


def _one_metric(spec, from_step, csv_value: float, csv_given: bool, notes):
    """The step files' value when they have one, else leaderboard.csv's, else why neither."""
    fmt = leaderboard.FLOAT_FORMAT
    if isinstance(csv_value, str):  # refused by _screened_csv: the reason
        if from_step is not None and from_step.available:
            return from_step
        return card_lib.unavailable(spec, csv_value, BACKENDS["leaderboard"])
    if from_step is not None and from_step.available:
        if pd.notna(csv_value) and fmt % from_step.value != fmt % csv_value:
            notes.append(f"{spec.id}: leaderboard.csv says {fmt % csv_value}, the step files "
                         f"give {fmt % from_step.value}")
        return from_step
    if pd.notna(csv_value):
        if from_step is not None:
            notes.append(f"{spec.id}: {from_step.unavailable_reason}; the value is "
                         "leaderboard.csv's")
        return _model_level(spec, csv_value, BACKENDS["leaderboard"])
    if from_step is not None:
        return from_step
    if csv_given and not spec.leaderboard:
        return card_lib.unavailable(spec, "not a leaderboard.csv column, and no per-clip "
                                    "Step 1 results (--eval_csv, --eval_dir) were given")
    step = rows_lib.STEPS[rows_lib.step_kind(spec.id)]
    return card_lib.unavailable(
        spec, f"no {step.name} results given ({_SOURCE_FLAGS[rows_lib.step_kind(spec.id)]}"
        + (", nor a value in leaderboard.csv)" if csv_given else ")"))


def _metric_results(results: files_lib.ModelResults, csv_row: Optional[dict], samples, notes):
    row = leaderboard.aggregate_model(results)
    metrics = []
    for spec in metric_specs.ALL:
        kind = rows_lib.step_kind(spec.id)
        step = getattr(results, kind)
        from_step = None if step is None else _from_step(spec, kind, step, row, samples, notes)
        metrics.append(_one_metric(spec, from_step, (csv_row or {}).get(spec.id, math.nan),
                                   csv_row is not None, notes))
    return metrics


def _screened_csv(csv: "LeaderboardRow", checks) -> dict:
    """leaderboard.csv's values, each one that is not finite or outside its metric's range
    (ORS and VQA x100 there) replaced by its reason (so the metric is unavailable)."""
    values = {}
    for metric, value in csv.values.items():
        scale = 100 if rows_lib.step_kind(metric) in ("ors", "vqa") else 1
        reason = None if pd.isna(value) else checks.check(
            f"{csv.path.name} row {csv.model}", metric, value, scale)
        values[metric] = reason or value
    return values


@dataclasses.dataclass(frozen=True)
class LeaderboardRow:
    """One model's row of a leaderboard.csv: its Model value and {metric: value}."""

    path: pathlib.Path
    model: str
    values: dict


def leaderboard_row(path: pathlib.Path, model_name: Optional[str]) -> LeaderboardRow:
    """The row of `model_name` (through the name map), or the only row when None."""
    df = leaderboard.read_csv(path)
    if model_name:
        keys = files_lib.keys_for(model_name)
        shown = {files_lib.display_name(k) for k in keys}
        hits = df[[m == model_name or files_lib.canonical_key(str(m)) in keys or m in shown
                   for m in df["Model"]]]
    else:
        hits = df
    if len(hits) != 1:
        raise InputError(path, f"one row for model {model_name!r}" if model_name else
                         "one row, or --model_name to choose", f"{len(hits)} of models "
                         + ", ".join(map(str, df["Model"])))
    record = hits.iloc[0]
    return LeaderboardRow(path, str(record["Model"]), {
        m: float(record[m]) for m in leaderboard.DISPLAY_ORDER if m in df.columns})


def build(results: files_lib.ModelResults, model_name: str,
          csv: Optional[LeaderboardRow] = None):
    """(scorecard, samples) from one model's official results and/or its leaderboard row."""
    merge = rows_lib.RowMerge()
    for kind in rows_lib.STEPS:
        step = getattr(results, kind)
        if step is not None:
            merge.add(kind, step)  # values not finite or out of range: out of the means
            merge.notes += step.notes
    samples = merge.finish()
    card = scorecard_pb2.Scorecard(benchmark_id="memobench", model_name=model_name,
                                   benchmark_version="memobench/imported")
    notes = []
    csv_values = _screened_csv(csv, merge.checks) if csv else None
    card.metrics.extend(_metric_results(results, csv_values, samples, notes))
    for result in card.metrics:
        card_lib.record_refused(result, merge.rejected.get(result.id, {}))
    notes += merge.checks.notes()
    present = [k for k in rows_lib.STEPS if getattr(results, k) is not None]
    lines = [verification.describe_step(rows_lib.STEPS[k], merge.evaluated[rows_lib.STEPS[k].name],
                                        merge.failed[rows_lib.STEPS[k].name])
             + f" [{getattr(results, k).path.name}]" for k in present]
    if csv:
        lines.append(f"leaderboard.csv [{csv.path.name}]: model-level means only, no per-clip "
                     "rows" + ("" if present else ", so coverage is unknown"))
    found = set().union(*merge.evaluated.values(), *merge.failed.values())
    card.coverage.CopyFrom(card_lib.coverage(
        sorted(verification.OFFICIAL_CLIPS), sorted(found), samples,
        "the 360 official clips (spec §2.5); per step: " + "; ".join(lines)))
    # A step without per-clip rows has unknown coverage (its values, if any, came from
    # leaderboard.csv).
    evaluated = {s.name: (merge.evaluated[s.name] if k in present else None)
                 for k, s in rows_lib.STEPS.items()}
    facts = gate.Facts(
        required=[spec.id for spec in metric_specs.LEADERBOARD],
        coverage_rule=lambda card: verification.coverage_blockers(evaluated, merge.failed,
                                                                  card.metrics))
    card.verification.CopyFrom(gate.assess_import(card, facts, "clips"))
    if results.vqa is not None or (csv and pd.notna(csv.values.get("InstructionFollowing"))):
        notes.append(verification.VQA_COVERAGE_NOTE)
    card.notes.extend(merge.notes + merge.duplicate_notes() + notes)
    return card, samples


def build_scorecard(path: pathlib.Path, model_name: str):
    """(scorecard, samples) for one official eval CSV alone (InputError when it is
    unreadable, lacks the columns or has no row)."""
    step = files_lib.require_rows(files_lib.read_eval_csv(path), "--eval_csv")
    return build(files_lib.ModelResults(files_lib.canonical_key(model_name), eval=step),
                 model_name)


def write_outputs(out_dir: pathlib.Path, card, samples,
                  inputs: Optional[dict] = None) -> scorecard_pb2.Scorecard:
    """scorecard.json, per_sample_scores.jsonl and raw_metric_table.jsonl in `out_dir`
    (engine.write_import; `inputs`: the official files read, for provenance)."""
    return engine.write_import(engine.Imported(card, samples, [m.id for m in card.metrics]),
                               out_dir, inputs or {})
