"""Importing official VBench results (`{name}_eval_results.json`, a folder of them, or the
zip scripts/cal_final_score.py reads) into a scorecard; nothing is recomputed.

Each dimension's value is its file's aggregate (`value[0]`), from the file
cal_final_score.py would take it from (reader.py: the last in os.listdir order); its
per-video list gives one row per video (sample_id = the video file's name, split
"generated"; columns and `vbench_extras/<d>` diagnostics as benchmarks/vbench/dimension.py
lays them out). Values are held to the metric table's official ranges
(metric_table.ValueChecks): a refused per-video value is that row's metric missing, with
the reason naming the file, dimension and video, and the dimension's value is then the
single-GPU aggregate of the other rows (aggregate.py), or unavailable where the file does
not record what it needs (subject_consistency's frame-pair counts). The scores:
cal_final_score.py's three, value for value (absent dimensions counted as 0, as it does),
and our quality / semantic / total where all their dimensions are present.
"""

import json
import os
import zipfile
from typing import Dict, List, Optional, Tuple

from benchmarks.common import engine
from benchmarks.common import gate
from benchmarks.common import scorecard as card_lib
from benchmarks.common.errors import InputError
from benchmarks.common.metric_table import ValueChecks
from benchmarks.vbench import dimension as dimension_lib
from benchmarks.vbench import metric_specs
from benchmarks.vbench.results import aggregate as aggregate_lib
from benchmarks.vbench.results import reader
from benchmarks.vbench.results import score_card
from proto import scorecard_pb2

BENCHMARK_ID = "vbench"
BENCHMARK_VERSION = "vbench/1"
SPLIT = "generated"
_BY_OFFICIAL_KEY = {d.replace("_", " "): d for d in metric_specs.DIMENSIONS}


class _Entry:
    """One dimension as the file that wins it gives it."""

    def __init__(self, source: str, value: list):
        self.source, self.aggregate = source, value[0]
        self.videos = value[1] if len(value) > 1 else None


def _entries(reads: List[reader.Read], single: bool, notes: List[str]) -> Dict[str, _Entry]:
    """Each dimension's winning entry, as cal_final_score.py's `upload[key] = value[0]`
    (keys matched after `replace('_', ' ')`)."""
    entries: Dict[str, _Entry] = {}
    givers: Dict[str, List[str]] = {}
    for read in reads:
        if not isinstance(read.content, dict):
            if single:
                raise InputError(read.name, reader.EXPECTED, type(read.content).__name__)
            notes.append(f"{read.name}: not a JSON object, ignored (as cal_final_score.py "
                         "ignores it)")
            continue
        for key, value in read.content.items():
            d = _BY_OFFICIAL_KEY.get(key.replace("_", " "))
            if d is None:
                notes.append(f"{read.name}: key {key!r} is not one of the 16 dimensions "
                             "(ignored, as cal_final_score.py's scores ignore it)")
                continue
            if not isinstance(value, list) or not value or (
                    len(value) > 1 and not isinstance(value[1], list)):
                raise InputError(read.name, f"{key}: [aggregate, [per-video dicts]]",
                                 repr(value)[:120])
            entries[d] = _Entry(read.name, value)
            givers.setdefault(d, []).append(f"{read.name} ({value[0]!r})")
    for d, names in givers.items():
        if len(names) > 1:
            notes.append(f"{d} is in {len(names)} files: " + ", ".join(names) + "; the "
                         "last in os.listdir order is taken, as cal_final_score.py takes it")
    return {d: entries[d] for d in metric_specs.DIMENSIONS if d in entries}


def _pooled(d: str, video: dict) -> Optional[Tuple[float, float]]:
    """(num, den) of the row where the file records them (dimension.py's columns)."""
    try:
        if d == "background_consistency":
            return float(video["video_sim"]), float(video["cnt_per_video"])
        if d == "appearance_style":
            total = 0.0
            for value in video["frame_results"]:
                total += value
            return total, float(len(video["frame_results"]))
    except (KeyError, TypeError, ValueError):
        return None
    return None


def _video_rows(d: str, entry: _Entry, samples: Dict[str, scorecard_pb2.SampleScore],
                checks: ValueChecks, refused: Dict[str, str]
                ) -> List[aggregate_lib.VideoRow]:
    """Fills `samples` with the entry's videos; returns the rows whose value was kept."""
    declared = aggregate_lib.DECLARATIONS[d]
    rows, seen = [], set()
    for position, video in enumerate(entry.videos or ()):
        path = video.get("video_path") if isinstance(video, dict) else None
        if not isinstance(path, str) or "video_results" not in video:
            raise InputError(entry.source, f"{d}: per-video dicts with video_path and "
                             "video_results", f"entry {position}: {video!r}"[:160])
        sample_id = os.path.basename(path)
        if sample_id in seen:
            raise InputError(entry.source, f"{d}: one entry per video file name",
                             f"{sample_id} twice")
        seen.add(sample_id)
        sample = samples.setdefault(sample_id, scorecard_pb2.SampleScore(
            sample_id=sample_id, split=SPLIT))
        value = video["video_results"]
        if declared.video_type is bool and isinstance(value, bool):
            value = float(value)
        reason = checks.check(f"{entry.source} {d} video {path}", d, value)
        if reason:
            sample.unavailable[d] = reason
            refused[f"{SPLIT}/{sample_id}"] = reason
            continue
        sample.metrics[d] = value
        extras = {k: video[k] for k, _ in declared.extras if k in video}
        if extras:
            sample.diagnostics[dimension_lib.EXTRAS_KEY + d] = json.dumps(
                extras, separators=(",", ":"))
        pooled = _pooled(d, video)
        columns = {d: float(value)}
        if pooled:
            columns[f"{d}:num"], columns[f"{d}:den"] = pooled
            sample.metrics[f"{d}:num"], sample.metrics[f"{d}:den"] = pooled
        rows.append(aggregate_lib.VideoRow(path, columns, {d: extras}))
    return rows


def _dimension(d, entry: Optional[_Entry], rows, refused, checks, notes
               ) -> Tuple[scorecard_pb2.MetricResult, Optional[str]]:
    """The dimension's result, and the reason its file aggregate was refused (if it was)."""
    spec = metric_specs.BY_ID[d]
    backend = score_card.imported_backend()
    if entry is None:
        return card_lib.unavailable(spec, "not in the imported files (cal_final_score.py "
                                    "counts it as 0)", backend), None
    bad = checks.check(f"{entry.source} {d} aggregate", d, entry.aggregate)
    result = card_lib.unavailable(spec, "", backend)
    if not bad and not refused:
        result.available, result.value = True, float(entry.aggregate)
        notes.extend(score_card.consistency(d, entry.aggregate, rows, entry.source))
    elif rows:
        try:
            value = aggregate_lib.aggregate(d, rows)
        except (ValueError, KeyError, TypeError) as e:
            result.unavailable_reason = (f"{bad or 'per-video values refused'}; the other "
                                         f"rows cannot give the official aggregate: {e}")
        else:
            result.available, result.value = True, value
            notes.append(f"{d}: the value is the single-GPU aggregate of the {len(rows)} "
                         f"valid rows, not {entry.source}'s {entry.aggregate!r} (refused "
                         "values are in it)")
    else:
        result.unavailable_reason = bad or "every per-video value refused"
    if result.available and entry.videos is not None:
        result.sample_count = len(rows)
    card_lib.record_refused(result, refused)
    return result, bad


def import_results(path, model_name: str) -> engine.Imported:
    """The scorecard and rows of the official results at `path` (a JSON, a folder, a zip).

    Raises:
      InputError: unreadable or malformed files (naming the file and what was expected),
        or no dimension in them.
    """
    reads, skipped = reader.read(path)
    notes: List[str] = []
    if skipped:
        notes.append("skipped as cal_final_score.py skips them (names starting with '.' "
                     "or '__'): " + ", ".join(skipped))
    single = os.path.isfile(path) and not zipfile.is_zipfile(path)
    entries = _entries(reads, single, notes)
    if not entries:
        raise InputError(path, reader.EXPECTED, "no VBench dimension in "
                         f"{len(reads)} JSON file(s)")
    checks = ValueChecks(metric_specs.TABLE)
    samples: Dict[str, scorecard_pb2.SampleScore] = {}
    card = scorecard_pb2.Scorecard(benchmark_id=BENCHMARK_ID, model_name=model_name,
                                   benchmark_version=BENCHMARK_VERSION)
    refused_aggregates = {}
    for d in metric_specs.DIMENSIONS:
        entry, refused = entries.get(d), {}
        rows = _video_rows(d, entry, samples, checks, refused) if entry else []
        result, bad = _dimension(d, entry, rows, refused, checks, notes)
        if bad:
            refused_aggregates[d] = bad
        card.metrics.append(result)
    aggregates = {d: e.aggregate for d, e in entries.items()}
    card.metrics.extend(score_card.final_scores(card.metrics, aggregates,
                                                refused_aggregates))
    if not refused_aggregates:
        notes.extend(score_card.absent_note(aggregates))
    notes.extend(checks.notes())
    rows_out = list(samples.values())
    ids = [s.sample_id for s in rows_out]
    card.coverage.CopyFrom(card_lib.coverage(ids, ids, rows_out, str(path)))
    card.verification.CopyFrom(gate.assess_import(
        card, gate.Facts(required=metric_specs.DIMENSIONS + score_card.HEADLINE),
        "videos", per_sample=bool(rows_out)))
    card.notes.extend(notes + ["imported from the official eval_results.json; nothing "
                               "recomputed"])
    return engine.Imported(card, rows_out, metric_specs.DIMENSIONS)


def write_outputs(out_dir, imported: engine.Imported, inputs: Optional[dict] = None
                  ) -> scorecard_pb2.Scorecard:
    """scorecard.json and, with per-video rows, per_sample_scores.jsonl and
    raw_metric_table.jsonl (engine.write_import; `inputs`: for provenance)."""
    return engine.write_import(imported, out_dir, inputs or {})
