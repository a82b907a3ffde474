"""VMBench's metric results from per-video samples: the five metrics and both Totals.

Samples carry each video's raw values under the official results.json keys (0-1; PAS
raw). A metric's scorecard value is scores.csv's number for it (statistics.mean x100,
so an import reproduces the CSV exactly), with the 95% interval scaled alike; PAS's is
its raw mean x100 (calculate_score.py would never print it: key typo). The Totals are
official_scores.faithful / corrected over the same per-video values.
"""

import statistics
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from benchmarks.common import scorecard as card_lib
from benchmarks.vmbench import metric_specs
from benchmarks.vmbench import official_scores
from proto import scorecard_pb2


def entries_of(samples: Sequence[scorecard_pb2.SampleScore]) -> List[Dict[str, float]]:
    """The per-video values as calculate_score.py sees them (failed samples have none)."""
    return [dict(s.metrics) for s in samples if not s.error]


def _scaled(result: scorecard_pb2.MetricResult, value_x100: float) -> None:
    result.value = value_x100
    if result.HasField("ci95"):
        result.ci95.low *= 100
        result.ci95.high *= 100


def per_video(metric_id: str, samples, backend: scorecard_pb2.Backend, reason: str = "",
              seconds: float = 0.0) -> scorecard_pb2.MetricResult:
    """One of the five: unavailable with `reason` when given, else the mean x100."""
    spec = metric_specs.BY_ID[metric_id]
    if reason:
        return card_lib.unavailable(spec, reason, backend)
    result = card_lib.aggregate(spec, samples, backend, seconds)
    if result.available:
        values = [s.metrics[metric_id] for s in samples
                  if not s.error and metric_id in s.metrics]
        _scaled(result, statistics.mean(values) * 100)
    return result


def totals(samples, backends: Mapping[str, scorecard_pb2.Backend],
           computed: Sequence[str]) -> Tuple[scorecard_pb2.MetricResult, ...]:
    """(official Total, corrected Total) over the per-video values of `computed`.

    Each Total's backend is the least trusted of the metrics it averages (the first that
    is not official, else the first), named as such.
    """
    entries = [{k: v for k, v in e.items() if k in computed} for e in entries_of(samples)]
    faithful = official_scores.faithful(entries)
    out = []
    for spec, agg, keys in (
            (metric_specs.BY_ID[metric_specs.TOTAL], faithful if faithful.means else None,
             [k for k in official_scores.OFFICIAL_KEYS if k in faithful.means]),
            (metric_specs.BY_ID[metric_specs.TOTAL_CORRECTED],
             official_scores.corrected(entries), list(official_scores.METRIC_KEYS))):
        backend = _weakest([backends[k] for k in keys if k in backends])
        if agg is None:
            lacking = [k for k in official_scores.METRIC_KEYS if k not in computed
                       or not any(k in e for e in entries)]
            why = ("none of the metrics calculate_score.py averages has a value (it would "
                   "print Total Score 0): " if spec.id == metric_specs.TOTAL else
                   "needs all five metrics; no value for: ")
            out.append(card_lib.unavailable(
                spec, why + ", ".join(k for k in lacking if spec.id != metric_specs.TOTAL
                                      or k != official_scores.PAS), backend))
            continue
        result = card_lib.unavailable(spec, "", backend)
        result.available = True
        result.value = agg.total_x100
        result.sample_count = max(agg.counts.values())
        out.append(result)
    return tuple(out)


def _weakest(backends: List[scorecard_pb2.Backend]) -> Optional[scorecard_pb2.Backend]:
    if not backends:
        return None
    chosen = next((b for b in backends if not b.official), None) or next(
        (b for b in backends if not b.parity.verified), backends[0])
    combined = scorecard_pb2.Backend()
    combined.CopyFrom(chosen)
    combined.name = "aggregate of: " + ", ".join(sorted({b.name for b in backends}))
    combined.digest_pinned = all(b.digest_pinned for b in backends)
    return combined
