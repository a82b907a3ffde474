"""Importing official VMBench outputs into a scorecard; nothing is recomputed.

Sources: a results.json (per-video rows; the scores.csv the official calculate_score.py
would write from it is written too, byte for byte), or a scores.csv alone (model-level
values only). Coverage is against the suite (prompts.json's indices, or 0001..1050): the
official create_meta_info.py drops videos that are missing without a word, and a metric
script that cannot read a video leaves its key out; both are named here.
"""

import dataclasses
import pathlib
import shutil
from typing import Dict, List, Optional, Sequence

from benchmarks.common import engine
from benchmarks.common import gate
from benchmarks.common import scorecard as card_lib
from benchmarks.common import trust
from benchmarks.common.errors import InputError
from benchmarks.common.metric_table import ValueChecks
from benchmarks.vmbench import card_metrics
from benchmarks.vmbench import metric_specs
from benchmarks.vmbench import official_scores
from benchmarks.vmbench import prompt_suite
from benchmarks.vmbench import results_json
from proto import scorecard_pb2

BENCHMARK_ID = "vmbench"
BENCHMARK_VERSION = "vmbench/1"
CAS_NOTE = ("commonsense_adherence_score: the official commonsense_adherence_score.py never "
            "loads vit_g_vmbench.pt (spec §4.4), so a results.json it wrote holds a "
            "randomly initialised ViT-g's scores (about 50 for every video) unless its "
            "authors patched it")


def imported_backend(what: str) -> scorecard_pb2.Backend:
    """The official tool's own numbers, read as written (parity by construction)."""
    return scorecard_pb2.Backend(
        name=f"imported: VMBench {what}", official=True,
        note="values read from the official output, not recomputed by worldeval",
        parity=trust.verified(f"the official {what}, read as written",
                              "the values are the official implementation's"),
        digest_pinned=True, implementation=f"official AMAP-ML/VMBench ({what})")


@dataclasses.dataclass
class Imported:
    card: scorecard_pb2.Scorecard
    samples: List[scorecard_pb2.SampleScore]
    entries: Optional[List[Dict]]        # results.json as read, when given
    scores_csv: Optional[pathlib.Path]   # the official scores.csv, when given


VALUE_WARNINGS = "value_warnings"  # a sample diagnostic: values kept, outside nominal


def samples_from_entries(entries: Sequence[Dict], checks: Optional[ValueChecks] = None,
                         name: str = metric_specs.RESULTS_JSON
                         ) -> List[scorecard_pb2.SampleScore]:
    """One SampleScore per entry; a value that is not finite or outside its metric's
    official range (metric_specs) is that video's metric missing, with the reason."""
    checks = checks or ValueChecks(metric_specs.TABLE)
    samples = []
    for position, entry in enumerate(entries):
        sample = scorecard_pb2.SampleScore(sample_id=entry["index"])
        where = f"{name} entry {position} (index {entry['index']})"
        for key in official_scores.METRIC_KEYS:
            if key not in entry:
                sample.unavailable[key] = f"no {key} key in results.json for this video"
                continue
            reason = checks.check(where, key, entry[key])
            if reason:
                sample.unavailable[key] = reason
                continue
            sample.metrics[key] = entry[key]
            warning = checks.warning(where, key, entry[key])
            if warning:
                sample.diagnostics[VALUE_WARNINGS] = "; ".join(
                    filter(None, [sample.diagnostics.get(VALUE_WARNINGS), warning]))
        for key in ("filepath", "subject_noun"):
            if key in entry:
                sample.diagnostics[key] = str(entry[key])
        samples.append(sample)
    return samples


def _from_csv(values: Dict[str, float], path: pathlib.Path, checks: ValueChecks):
    backend = imported_backend("calculate_score.py scores.csv")
    metrics = []
    for spec in metric_specs.PER_VIDEO + metric_specs.TOTALS:
        column = spec.official_column
        # scores.csv holds each per-video metric's mean x100, the Total on its own scale.
        reason = checks.check(f"{path.name} row {column}", spec.id, values[column],
                              scale=1 if spec in metric_specs.TOTALS else 100
                              ) if column in values else None
        if reason:
            metrics.append(card_lib.unavailable(spec, reason, backend))
        elif column and column in values:
            result = card_lib.unavailable(spec, "", backend)
            result.available, result.value = True, values[column]
            metrics.append(result)
        else:
            why = ("calculate_score.py never writes it (its PAS key is misspelt)"
                   if spec.id == official_scores.PAS else
                   "not derivable from scores.csv (needs the per-video results.json)"
                   if spec.id == metric_specs.TOTAL_CORRECTED else f"no {column} row")
            metrics.append(card_lib.unavailable(spec, f"{path.name}: {why}", backend))
    return metrics


def build(model_name: str, results_path: Optional[pathlib.Path] = None,
          scores_csv: Optional[pathlib.Path] = None,
          suite: Optional[Sequence[prompt_suite.Prompt]] = None) -> Imported:
    """The scorecard of the given official outputs (at least one of the two paths)."""
    if results_path is None and scores_csv is None:
        raise InputError("--results_json / --scores_csv", "at least one official output",
                         "none given")
    expected = ([p.index for p in suite] if suite else
                [f"{i:04d}" for i in range(1, prompt_suite.SUITE_SIZE + 1)])
    notes = []
    card = scorecard_pb2.Scorecard(benchmark_id=BENCHMARK_ID, model_name=model_name,
                                   benchmark_version=BENCHMARK_VERSION)
    entries, samples = None, []
    csv_values = None
    checks = ValueChecks(metric_specs.TABLE)
    if scores_csv is not None:
        try:
            csv_values = official_scores.parse_scores_csv(
                pathlib.Path(scores_csv).read_text(encoding="utf-8"), scores_csv)
        except (OSError, UnicodeDecodeError) as e:
            raise InputError(scores_csv, "VMBench's scores.csv (--scores_csv)",
                             f"{type(e).__name__}: {e}") from e
        except ValueError as e:
            raise InputError(scores_csv, "VMBench's scores.csv", str(e)) from e
    if results_path is not None:
        entries = results_json.read(results_path)
        samples = samples_from_entries(entries, checks, pathlib.Path(results_path).name)
        backend = imported_backend("results.json")
        present = [k for k in official_scores.METRIC_KEYS if any(k in e for e in entries)]
        metrics = [card_metrics.per_video(
            k, samples, backend, "" if k in present else
            f"{pathlib.Path(results_path).name}: no entry has {k}")
            for k in metric_specs.PER_VIDEO_IDS]
        metrics += card_metrics.totals(samples, {k: backend for k in present}, present)
        if csv_values is not None:
            notes += _reconcile(csv_values, official_scores.faithful(entries), scores_csv)
    else:
        metrics = _from_csv(csv_values, pathlib.Path(scores_csv), checks)
        notes.append("scores.csv only: model-level values, no per-video rows; coverage "
                     "against the suite is unknown")
    card.metrics.extend(metrics)
    notes += checks.notes()
    if entries is not None and checks.rejected:
        notes.append("the scores.csv written beside the scorecard is calculate_score.py's on "
                     "the results.json as given, those values included")
    found = [s.sample_id for s in samples]
    card.coverage.CopyFrom(card_lib.coverage(
        expected, found, samples, "VMBench prompts.json indices" if suite else
        "VMBench's 1,050 prompt indices (0001..1050)"))
    outside = sorted(set(found) - set(expected))
    if outside:
        notes.append(f"{len(outside)} results.json indices are not in the suite: "
                     + ", ".join(outside[:10]))
    if entries is not None and card.coverage.missing_sample_ids:
        notes.append("create_meta_info.py drops a missing video silently: the suite videos "
                     "without a results.json entry are listed in coverage")
    notes += [CAS_NOTE, "total_score is the official Total (calculate_score.py: PAS dropped "
              "by its key typo); total_score_corrected averages all five"]
    counts = [gate.Count("the prompt manifest", len(suite), prompt_suite.SUITE_SIZE,
                         "prompts")] if suite else ()
    card.verification.CopyFrom(gate.assess_import(
        card, gate.Facts(counts=counts, required=metric_specs.PER_VIDEO_IDS,
                         trusted=metric_specs.PER_VIDEO_IDS), "videos",
        per_sample=entries is not None))
    card.notes.extend(notes)
    return Imported(card, samples, entries, pathlib.Path(scores_csv) if scores_csv else None)


def _reconcile(csv_values, agg: official_scores.Aggregate, path) -> List[str]:
    """Where the given scores.csv disagrees with calculate_score.py on the results.json."""
    mine = {k: agg.x100(k) for k in agg.means}
    mine[official_scores.TOTAL_ROW] = agg.total_x100
    diffs = [f"{k}: csv {csv_values.get(k)} vs {mine.get(k)}"
             for k in sorted(set(csv_values) | set(mine))
             if csv_values.get(k) is None or mine.get(k) is None
             or abs(csv_values[k] - mine[k]) > 1e-9]
    if not diffs:
        return [f"{path}: equals calculate_score.py on the results.json"]
    return [f"{path} disagrees with calculate_score.py on the given results.json "
            "(the scorecard follows the results.json): " + "; ".join(diffs)]


def write_outputs(out_dir: pathlib.Path, imported: Imported,
                  inputs: Optional[Dict[str, object]] = None) -> scorecard_pb2.Scorecard:
    """scorecard.json, per_sample_scores.jsonl, raw_metric_table.jsonl and scores.csv
    (engine.write_import; `inputs`: the official files read, for provenance)."""

    def official(out) -> Dict[str, str]:
        scores_path = out.path(metric_specs.SCORES_CSV)
        if imported.entries is not None:
            official_scores.write_scores_csv(
                scores_path, official_scores.faithful(imported.entries))
        elif imported.scores_csv.resolve() != scores_path.resolve():
            shutil.copyfile(imported.scores_csv, scores_path)
        else:
            return {}
        return {"scores_csv": str(scores_path)}

    return engine.write_import(engine.Imported(
        imported.card, imported.samples if imported.entries is not None else (),
        metric_specs.PER_VIDEO_IDS, official), out_dir, inputs or {})
