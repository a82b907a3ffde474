"""The one eligibility gate: whether a scorecard may stand on a leaderboard, and if not,
every reason, in the same order and by the same rules for every benchmark.

  1. NOT_OFFICIAL_DATA     the benchmark's reasons (the bundled sample, a staged run ...),
                           else each count of the inputs that is not the official one
  2. INCOMPLETE_COVERAGE   expected samples with no generated input (or the benchmark's own
                           coverage rule), then the benchmark's coverage blockers
  3. INCOMPLETE_COVERAGE   a subset on purpose: one shard, --limit
  4. PROTOCOL_DEVIATION    --max_side, then the benchmark's protocol deviations
  5. SAMPLE_ERRORS         samples that failed (unless the benchmark's coverage rule
                           counts them)
  6. METRIC_UNAVAILABLE    each required metric that is not available (one per metric;
                           "not selected (--metrics)" for one the run did not select)
  7. trust                 each available trusted metric: official backend, verified
                           parity, pinned digests (trust.backend_blockers); computed on
                           every sample it should be (trust.metric_coverage_blockers)
  8. internal errors       samples that failed on a worldeval bug

An import of the official tool's files (`assess_import`) goes through the same steps after
IMPORTED_NOT_RECOMPUTED, less the run's own (3, --max_side, backend trust).

Counts are of the whole inputs (the prompt suite, the meta CSV), never of one shard's part
or --limit's, so a shard and the merged run check the same numbers. Deviations: --max_side's, the benchmark's protocol deviations, and
"<metric>: backend <name>: <note>" for each available trusted metric whose backend is not
official.
"""

import dataclasses
from typing import Callable, List, Optional, Sequence

from benchmarks.common import max_side
from benchmarks.common import scorecard as card_lib
from benchmarks.common import shards
from benchmarks.common import trust
from proto import scorecard_pb2

NOT_SELECTED = "not selected (--metrics)"
_LISTED = 10  # sample ids named in one blocker's detail


@dataclasses.dataclass(frozen=True)
class Count:
    """"<source> has <found> <unit>, not the official <official>" when they differ."""

    source: str
    found: int
    official: int
    unit: str


@dataclasses.dataclass(frozen=True)
class Facts:
    """What only the benchmark knows about a run, for the gate.

    Attributes:
      not_official_data: why the inputs are not the official data (empty: they are).
      counts: the inputs' counts that the official data fixes (checked when
        `not_official_data` is empty).
      required: the metrics that must all be available (None: every metric of the card).
      trusted: the metrics whose backends must be trusted when available (None: every
        metric of the card).
      coverage_rule: replaces the default missing/failed blockers (MemoBench's per step).
      coverage: more INCOMPLETE_COVERAGE blockers (a movement not evaluated ...).
      protocol_deviations: flags that changed the protocol (a deviation and a blocker each).
      native_max_side: the official code reads native resolution, so a --max_side is a
        protocol deviation (gate's rule); False where the benchmark has its own rule and
        says it in `protocol_deviations` (MemoBench: 640).
    """

    not_official_data: Sequence[str] = ()
    counts: Sequence[Count] = ()
    required: Optional[Sequence[str]] = None
    trusted: Optional[Sequence[str]] = None
    coverage_rule: Optional[Callable[[scorecard_pb2.Scorecard],
                                     List[scorecard_pb2.Blocker]]] = None
    coverage: Sequence[scorecard_pb2.Blocker] = ()
    protocol_deviations: Sequence[str] = ()
    native_max_side: bool = True


def listed(ids: Sequence[str]) -> str:
    return ", ".join(ids[:_LISTED]) + (" ..." if len(ids) > _LISTED else "")


def _data_blockers(facts: Facts) -> List[scorecard_pb2.Blocker]:
    out = [card_lib.blocker(scorecard_pb2.NOT_OFFICIAL_DATA, why)
           for why in facts.not_official_data]
    if not facts.not_official_data:
        out += [card_lib.blocker(scorecard_pb2.NOT_OFFICIAL_DATA,
                                 f"{c.source} has {c.found} {c.unit}, not the official "
                                 f"{c.official}")
                for c in facts.counts if c.found != c.official]
    return out


def _coverage_blockers(card, facts: Facts, noun: str,
                       lacking: str = "generated input") -> List[scorecard_pb2.Blocker]:
    cov = card.coverage
    if facts.coverage_rule is not None:
        return facts.coverage_rule(card)
    out = []
    if cov.missing_sample_ids:
        out.append(card_lib.blocker(
            scorecard_pb2.INCOMPLETE_COVERAGE,
            f"{len(cov.missing_sample_ids)} of {cov.expected} expected {noun} have no "
            f"{lacking}: " + listed(list(cov.missing_sample_ids))))
    return out


def _failed_blockers(card, facts: Facts, noun: str) -> List[scorecard_pb2.Blocker]:
    cov = card.coverage
    if not cov.failed or facts.coverage_rule is not None:
        return []
    return [card_lib.blocker(scorecard_pb2.SAMPLE_ERRORS, f"{cov.failed} {noun} failed: "
                             + listed(list(cov.failed_sample_ids)))]


def _metric_blockers(card, facts: Facts) -> List[scorecard_pb2.Blocker]:
    by_id = {m.id: m for m in card.metrics}
    required = list(by_id) if facts.required is None else list(facts.required)
    out = []
    for metric_id in required:
        metric = by_id.get(metric_id)
        if metric is None or not metric.available:
            reason = NOT_SELECTED if metric is None else metric.unavailable_reason
            out.append(card_lib.blocker(scorecard_pb2.METRIC_UNAVAILABLE, reason, metric_id))
    return out


def trusted_metrics(card, facts: Facts) -> List[scorecard_pb2.MetricResult]:
    ids = None if facts.trusted is None else set(facts.trusted)
    return [m for m in card.metrics if ids is None or m.id in ids]


def assess(card: scorecard_pb2.Scorecard, facts: Facts, common,
           noun: str = "samples") -> scorecard_pb2.Verification:
    """The verification of a recomputed run (card: metrics and coverage filled in)."""
    cov = card.coverage
    blockers = _data_blockers(facts)
    blockers += _coverage_blockers(card, facts, noun)
    blockers += list(facts.coverage)
    blockers += shards.subset_blockers(common)
    capped = common.max_side if facts.native_max_side else None
    blockers += max_side.blockers(capped)
    blockers += [card_lib.blocker(scorecard_pb2.PROTOCOL_DEVIATION, d)
                 for d in facts.protocol_deviations]
    blockers += _failed_blockers(card, facts, noun)
    blockers += _metric_blockers(card, facts)
    trusted = trusted_metrics(card, facts)
    blockers += trust.backend_blockers(trusted)
    blockers += trust.metric_coverage_blockers(trusted)
    blockers += trust.internal_error_blockers(cov)
    deviations = (max_side.deviations(capped) + list(facts.protocol_deviations)
                  + backend_deviations(trusted))
    return card_lib.verification(blockers, deviations, cov.evaluated)


IMPORTED = "imported from the official output files; worldeval recomputed nothing"


def assess_import(card: scorecard_pb2.Scorecard, facts: Facts, noun: str = "samples",
                  per_sample: bool = True, detail: str = IMPORTED
                  ) -> scorecard_pb2.Verification:
    """The verification of an import of the official tool's files (card: metrics and
    coverage filled in): IMPORTED_NOT_RECOMPUTED, then the steps of `assess` in its order
    and by its rules, less those of a run worldeval made (shards, --max_side, backend
    trust: the official tool ran). `per_sample`: the files have per-sample rows; without
    them coverage is unknown (a blocker) and per-metric coverage is not checked. `detail`:
    the first blocker's text, where an importer recomputes something from the files (a
    score from a per-view table)."""
    cov = card.coverage
    blockers = [card_lib.blocker(scorecard_pb2.IMPORTED_NOT_RECOMPUTED, detail)]
    blockers += _data_blockers(facts)
    if per_sample:
        blockers += _coverage_blockers(card, facts, noun, "row in the imported files")
    else:
        blockers.append(card_lib.blocker(
            scorecard_pb2.INCOMPLETE_COVERAGE,
            f"model-level values only: no per-{noun.rstrip('s')} rows, coverage unknown"))
    blockers += list(facts.coverage)
    blockers += [card_lib.blocker(scorecard_pb2.PROTOCOL_DEVIATION, d)
                 for d in facts.protocol_deviations]
    blockers += _failed_blockers(card, facts, noun)
    blockers += _metric_blockers(card, facts)
    if per_sample:
        blockers += trust.metric_coverage_blockers(trusted_metrics(card, facts))
    return card_lib.verification(blockers, list(facts.protocol_deviations), cov.evaluated,
                                 imported=True)


def backend_deviations(metrics: Sequence[scorecard_pb2.MetricResult]) -> List[str]:
    """"<metric>: backend <name>: <note>" for each available metric not computed by an
    official backend."""
    return [f"{m.id}: backend {m.backend.name}: {m.backend.note}" for m in metrics
            if m.available and not m.backend.official]
