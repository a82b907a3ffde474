"""Assembling a Scorecard: metric aggregation over samples, coverage and verification."""

import collections
import dataclasses
from typing import Iterable, List, Mapping, Optional, Sequence, Tuple

from benchmarks.common import intervals
from proto import scorecard_pb2


@dataclasses.dataclass(frozen=True)
class MetricSpec:
    """What a metric is, independent of any run (one row of a benchmark's metric table).

    Attributes:
      official_column: where the official tool writes it (column or key), if it does.
      step: the part of the benchmark's pipeline that computes it.
      family: the metric family (benchmarks/common/family.py) that fills it.
      backends: the backend names that can compute it; the first is the official one.
      output_files: the official output files that carry it.
      official_range: (low, high) a value can take in the official output files, on
        the scale the official per-sample file writes it (a metric with no per-sample
        file: its model-level value's scale); None on a side: unbounded there. Importers
        refuse a value outside it, and any NaN or infinity (metric_table.MetricTable.
        check_official_value); the engine holds every value a runner computes to it
        (computed_values.py: outside it is a worldeval bug, the value left out and the
        sample an internal error). None: any finite value.
      nominal_range: the narrower range the official docs give, which the official
        arithmetic can still leave (e.g. a score that can go negative on repeated
        events); a value outside it but inside official_range is kept, with a warning.
    """

    id: str
    display_name: str
    unit: str
    higher_is_better: bool
    leaderboard: bool = False
    aggregation: str = "mean over samples"
    official_column: str = ""
    step: str = ""
    family: str = ""
    backends: Tuple[str, ...] = ()
    output_files: Tuple[str, ...] = ()
    official_range: Optional[Tuple[Optional[float], Optional[float]]] = None
    nominal_range: Optional[Tuple[Optional[float], Optional[float]]] = None


def aggregate(spec: MetricSpec, samples: Iterable[scorecard_pb2.SampleScore],
              backend: scorecard_pb2.Backend, seconds: float = 0.0,
              unavailable_reason: str = "",
              record_coverage: bool = True) -> scorecard_pb2.MetricResult:
    """Mean of `spec.id` over the samples that have it, with its 95% interval (normal, or a
    seeded bootstrap where the values are far from normal: benchmarks/common/intervals.py)
    and the interval's method.

    With no sample value the metric is unavailable: the reason is `unavailable_reason`,
    else the most common per-sample reason. With `record_coverage`, `samples` are the
    ones that should all carry the metric: the result names those that do not.
    """
    result = scorecard_pb2.MetricResult(
        id=spec.id, display_name=spec.display_name, unit=spec.unit,
        higher_is_better=spec.higher_is_better, leaderboard_metric=spec.leaderboard,
        aggregation=spec.aggregation, seconds=round(seconds, 3))
    result.backend.CopyFrom(backend)
    samples = list(samples)
    values = [s.metrics[spec.id] for s in samples if not s.error and spec.id in s.metrics]
    if not values:
        reasons = collections.Counter(
            s.unavailable[spec.id] for s in samples if spec.id in s.unavailable)
        result.available = False
        result.unavailable_reason = unavailable_reason or (
            reasons.most_common(1)[0][0] if reasons else "no sample produced a value")
        return result
    if record_coverage:
        _record_coverage(result, samples)
    interval = intervals.mean_interval(values)
    result.available = True
    result.value = interval.mean
    result.sample_count = len(values)
    if interval.low is not None:
        result.ci95.low, result.ci95.high = interval.low, interval.high
        result.ci95_method = interval.method_text
    return result


# A per-sample reason starting with this says the official code leaves the value empty on
# that sample too (e.g. no prompt for it): the gap is reported, but it is the protocol's.
OFFICIAL_GAP = "as in the official code: "


def _record_coverage(result: scorecard_pb2.MetricResult,
                     samples: Sequence[scorecard_pb2.SampleScore]) -> None:
    """expected_sample_count (samples scored without error) and those missing the metric."""
    ok = [s for s in samples if not s.error]
    result.expected_sample_count = len(ok)
    missing = sorted((f"{s.split}/{s.sample_id}", s.unavailable.get(result.id, "no value"))
                     for s in ok if result.id not in s.metrics)
    for key, reason in missing:
        result.missing_sample_ids.append(key)
        result.missing_reasons[key] = reason


def record_refused(result: scorecard_pb2.MetricResult, refused: Mapping[str, str]) -> None:
    """The samples ("split/id" -> reason) whose value of `result`'s metric an importer
    refused (metric_table.ValueChecks): in its coverage when it has a value from the
    others, else in the reason it is unavailable."""
    if not refused:
        return
    if not result.available:
        first = sorted(refused)[0]
        result.unavailable_reason = (f"no usable value: {len(refused)} refused (first: "
                                     f"{refused[first]})")
        return
    result.expected_sample_count = result.sample_count + len(refused)
    for key in sorted(refused):
        result.missing_sample_ids.append(key)
        result.missing_reasons[key] = refused[key]


def unavailable(spec: MetricSpec, reason: str,
                backend: Optional[scorecard_pb2.Backend] = None) -> scorecard_pb2.MetricResult:
    result = scorecard_pb2.MetricResult(
        id=spec.id, display_name=spec.display_name, unit=spec.unit,
        higher_is_better=spec.higher_is_better, leaderboard_metric=spec.leaderboard,
        aggregation=spec.aggregation, available=False, unavailable_reason=reason)
    if backend is not None:
        result.backend.CopyFrom(backend)
    return result


def coverage(expected_ids: Sequence[str], found_ids: Sequence[str],
             samples: Iterable[scorecard_pb2.SampleScore],
             expected_source: str) -> scorecard_pb2.Coverage:
    samples = list(samples)
    failed = sorted(s.sample_id for s in samples if s.error)
    evaluated = [s for s in samples if not s.error]
    cov = scorecard_pb2.Coverage(
        expected=len(expected_ids), evaluated=len(evaluated), failed=len(failed),
        expected_source=expected_source)
    cov.missing_sample_ids.extend(sorted(set(expected_ids) - set(found_ids)))
    cov.failed_sample_ids.extend(failed)
    for split, count in sorted(collections.Counter(s.split for s in evaluated).items()):
        cov.evaluated_by_split[split] = count
    return cov


def blocker(reason: int, detail: str, metric_id: str = "") -> scorecard_pb2.Blocker:
    return scorecard_pb2.Blocker(reason=reason, detail=detail, metric_id=metric_id)


def verification(blockers: List[scorecard_pb2.Blocker], deviations: Sequence[str],
                 evaluated: int, imported: bool = False) -> scorecard_pb2.Verification:
    """Scope and eligibility from the blockers: FULL_SUITE only when there are none."""
    ver = scorecard_pb2.Verification()
    ver.blocking.extend(blockers)
    ver.deviations.extend(deviations)
    off_protocol = {scorecard_pb2.PROTOCOL_DEVIATION, scorecard_pb2.NON_OFFICIAL_BACKEND}
    ver.official_protocol = not any(b.reason in off_protocol for b in blockers)
    if imported:
        ver.scope = scorecard_pb2.IMPORTED_OFFICIAL_RESULTS
    elif evaluated == 0:
        ver.scope = scorecard_pb2.NOT_EXECUTED
    elif blockers:
        ver.scope = scorecard_pb2.BOUNDED
    else:
        ver.scope = scorecard_pb2.FULL_SUITE
    ver.leaderboard_eligible = ver.scope == scorecard_pb2.FULL_SUITE
    return ver
