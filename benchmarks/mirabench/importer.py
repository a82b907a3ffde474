"""Importing official MiraBench results (calculate_score.py's output) into a scorecard.

average_score.csv (JSON despite the name: {code key: mean}, plus fvd/kvd/fid/kid when
computed) gives the model-level values; video_score.csv (video_id + per-video columns,
empty where the official code stored None) gives one row per video. Scope
IMPORTED_OFFICIAL_RESULTS: nothing is recomputed. A video_score.csv mean that differs
from average_score.csv's value is reported in the notes.
"""

import dataclasses
import math
import pathlib
from typing import Dict, List, Optional

from benchmarks.common import engine
from benchmarks.common import gate
from benchmarks.common import scorecard as card_lib
from benchmarks.common import trust
from benchmarks.common.errors import InputError
from benchmarks.common.metric_table import ValueChecks
from benchmarks.mirabench import card as card_mod
from benchmarks.mirabench import metric_specs
from benchmarks.mirabench import official_files
from proto import scorecard_pb2

BENCHMARK_ID = "mirabench"
BENCHMARK_VERSION = "mirabench/1"
SPLIT = "generated"


def _backend() -> scorecard_pb2.Backend:
    return scorecard_pb2.Backend(
        name="imported: MiraBench calculate_score.py outputs", official=True,
        digest_pinned=True, implementation="official mira-space/Miradata calculate_score.py",
        note="values read from the official average_score.csv / video_score.csv",
        parity=trust.verified("the official files, read as written",
                              "the values are the official implementation's"))


@dataclasses.dataclass
class Imported:
    card: scorecard_pb2.Scorecard
    samples: List[scorecard_pb2.SampleScore]


def read_average(path: pathlib.Path) -> dict:
    try:
        values = official_files.read_average_score(path)
    except (OSError, ValueError) as e:
        raise InputError(path, "the official average_score.csv (a JSON object of "
                         "metric means)", f"{type(e).__name__}: {e}") from e
    if not isinstance(values, dict):
        raise InputError(path, "a JSON object {metric: mean}", type(values).__name__)
    bad = [k for k, v in values.items() if not isinstance(v, (int, float)) or isinstance(v, bool)]
    if bad:
        raise InputError(path, "a number per metric", "non-numbers for " + ", ".join(bad))
    return values


def _samples(path: pathlib.Path, checks: ValueChecks, refused: Dict[str, Dict[str, str]]
             ) -> List[scorecard_pb2.SampleScore]:
    """One row per video; a value that is not finite or outside its metric's official
    range (metric_specs.RANGES) is that video's metric missing, with the reason (kept,
    by metric, in `refused`)."""
    try:
        columns, rows = official_files.read_video_score(path)
    except (OSError, ValueError) as e:
        raise InputError(path, "the official video_score.csv (video_id + metric columns)",
                         f"{type(e).__name__}: {e}") from e
    samples = []
    for number, row in enumerate(rows, 2):  # the header is row 1
        sample = scorecard_pb2.SampleScore(sample_id=row[official_files.VIDEO_ID], split=SPLIT)
        where = f"{path.name} row {number} (video {sample.sample_id})"
        for column in columns:
            value = row[column]
            if value is None:
                sample.unavailable[column] = ("as in the official code: empty in "
                                              "video_score.csv (the metric raised or was NaN)")
                continue
            reason = (checks.check(where, column, value) if column in metric_specs.BY_ID
                      else checks.check_finite(where, column, value))
            if reason:
                sample.unavailable[column] = reason
                refused.setdefault(column, {})[f"{SPLIT}/{sample.sample_id}"] = reason
            else:
                sample.metrics[column] = value
        samples.append(sample)
    return samples


def _result(spec, value, samples, backend, reason: str = "") -> scorecard_pb2.MetricResult:
    if value is None:
        return card_lib.unavailable(spec, "not in average_score.csv", backend)
    if math.isnan(value):
        return card_lib.unavailable(spec, "NaN in average_score.csv (no video had a value)",
                                    backend)
    if reason:
        return card_lib.unavailable(spec, reason, backend)
    result = card_lib.unavailable(spec, "", backend)
    result.available, result.value = True, float(value)
    if spec.step == metric_specs.PER_VIDEO and samples:
        result.sample_count = sum(1 for s in samples if spec.id in s.metrics)
    return result


def _valid_rows_mean(spec, samples, backend, average, notes) -> scorecard_pb2.MetricResult:
    """A per-video metric with refused values: the mean over video_score.csv's valid rows
    (average_score.csv's value is the official mean, refused values included)."""
    values = [s.metrics[spec.id] for s in samples if spec.id in s.metrics]
    if not values:
        return card_lib.unavailable(spec, "no valid value in video_score.csv", backend)
    result = card_lib.unavailable(spec, "", backend)
    result.available, result.value = True, sum(values) / len(values)
    result.sample_count = len(values)
    notes.append(f"{spec.id}: the value is the mean over the {len(values)} valid "
                 f"video_score.csv rows, not average_score.csv's {average!r} (the official "
                 "mean, refused values included)")
    return result


def import_files(average_path: pathlib.Path, video_path: Optional[pathlib.Path],
                 model_name: str) -> Imported:
    values = read_average(average_path)
    checks, refused = ValueChecks(metric_specs.TABLE), {}
    samples = _samples(video_path, checks, refused) if video_path else []
    backend = _backend()
    card = scorecard_pb2.Scorecard(benchmark_id=BENCHMARK_ID, model_name=model_name,
                                   benchmark_version=BENCHMARK_VERSION)
    for spec in metric_specs.TABLE.specs:
        value = values.get(spec.id)
        reason = (checks.check(f"{average_path.name} key {spec.id}", spec.id, value)
                  if value is not None and not math.isnan(value) else "")
        result = _result(spec, value, samples, backend, reason)
        if spec.id in refused or (reason and spec.step == metric_specs.PER_VIDEO):
            result = _valid_rows_mean(spec, samples, backend, value, card.notes)
        card_lib.record_refused(result, refused.get(spec.id, {}))
        card.metrics.append(result)
    card.notes.extend(checks.notes())
    unknown = [k for k in values if k not in metric_specs.BY_ID]
    if unknown:
        card.notes.append("average_score.csv keys not in MiraBench's table (ignored): "
                          + ", ".join(unknown))
    for m in card.metrics:
        column = [s.metrics[m.id] for s in samples if m.id in s.metrics]
        if m.available and column and not math.isclose(
                sum(column) / len(column), m.value, rel_tol=1e-9, abs_tol=1e-12):
            card.notes.append(f"{m.id}: video_score.csv mean {sum(column) / len(column)!r} "
                              f"differs from average_score.csv {m.value!r}")
    ids = [s.sample_id for s in samples]
    card.coverage.CopyFrom(card_lib.coverage(ids, ids, samples, str(video_path or
                                                                   average_path)))
    counts = [gate.Count(str(video_path), len(samples), card_mod.OFFICIAL_PROMPTS,
                         "videos")] if samples else ()
    card.verification.CopyFrom(gate.assess_import(card, gate.Facts(counts=counts), "videos",
                                                  per_sample=bool(samples)))
    card.notes.append("imported from the official output files; nothing recomputed. No "
                      "composite: the official code has none")
    return Imported(card, samples)


def write_outputs(out_dir: pathlib.Path, imported: Imported,
                  inputs: Optional[dict] = None) -> scorecard_pb2.Scorecard:
    """scorecard.json and, with video_score.csv, per_sample_scores.jsonl and
    raw_metric_table.jsonl (engine.write_import; `inputs`: for provenance)."""
    return engine.write_import(engine.Imported(
        imported.card, imported.samples, metric_specs.PER_VIDEO_IDS), out_dir, inputs or {})
