"""Trust levels of backends, and the gate checks every benchmark's verification uses.

Each backend carries three separate facts (proto Backend): the official algorithm and
weights (`official`); parity with the official implementation, verified with a pointer to
the evidence or not (`parity`); every checkpoint it loaded matched a pinned digest
(`digest_pinned`). A scorecard is FULL_SUITE and leaderboard-eligible only when every
available metric has all three, and when every metric was computed on every sample it
should have been (per-metric coverage), besides what each benchmark checks itself.
"""

from typing import Iterable, List, Sequence

from benchmarks.common import scorecard as card_lib
from proto import scorecard_pb2

_LISTED = 10  # sample ids named in one blocker's detail


def not_verified(scope: str = "") -> scorecard_pb2.Parity:
    """Parity not verified; `scope` says what was checked instead (e.g. tiny weights)."""
    return scorecard_pb2.Parity(verified=False, scope=scope)


def verified(evidence: str, scope: str) -> scorecard_pb2.Parity:
    """Parity verified: `evidence` points at the comparison, `scope` says what it covers."""
    if not evidence or not scope:
        raise ValueError("verified parity needs its evidence and its scope")
    return scorecard_pb2.Parity(verified=True, evidence=evidence, scope=scope)


def with_digests(backend: scorecard_pb2.Backend,
                 checkpoints: Iterable[scorecard_pb2.CheckpointRef]) -> scorecard_pb2.Backend:
    """A copy of `backend` whose digest_pinned says whether all `checkpoints` matched a
    pinned digest (true for a weight-free backend)."""
    stamped = scorecard_pb2.Backend()
    stamped.CopyFrom(backend)
    stamped.digest_pinned = all(ref.pinned_digest_matched for ref in checkpoints)
    return stamped


def _listed(ids: Sequence[str]) -> str:
    ids = sorted(ids)
    return ", ".join(ids[:_LISTED]) + (" ..." if len(ids) > _LISTED else "")


def backend_blockers(metrics: Sequence[scorecard_pb2.MetricResult]
                     ) -> List[scorecard_pb2.Blocker]:
    """One blocker per available metric and missing trust fact."""
    blockers = []
    for metric in metrics:
        if not metric.available:
            continue
        backend = metric.backend
        if not backend.official:
            blockers.append(card_lib.blocker(
                scorecard_pb2.NON_OFFICIAL_BACKEND, backend.name, metric.id))
        if not backend.parity.verified:
            detail = f"{backend.name}: parity with the official implementation not verified"
            if backend.parity.scope:
                detail += f" (checked: {backend.parity.scope})"
            blockers.append(card_lib.blocker(scorecard_pb2.UNVERIFIED_PARITY, detail,
                                             metric.id))
        if not backend.digest_pinned:
            blockers.append(card_lib.blocker(
                scorecard_pb2.UNPINNED_CHECKPOINT,
                f"{backend.name}: a checkpoint was loaded without a pinned sha256 to compare "
                "(see provenance.checkpoints)", metric.id))
    return blockers


def coverage_gaps(metric: scorecard_pb2.MetricResult) -> List[str]:
    """The samples missing `metric` for a reason other than the official protocol's."""
    return [key for key in metric.missing_sample_ids
            if not metric.missing_reasons.get(key, "").startswith(card_lib.OFFICIAL_GAP)]


def metric_coverage_blockers(metrics: Sequence[scorecard_pb2.MetricResult]
                             ) -> List[scorecard_pb2.Blocker]:
    """A blocker per available metric computed on fewer samples than it should have been
    (a family that failed on some clips), with the count and the failing sample ids."""
    blockers = []
    for metric in metrics:
        gaps = coverage_gaps(metric) if metric.available else []
        if gaps:
            first = metric.missing_reasons.get(sorted(gaps)[0], "")
            blockers.append(card_lib.blocker(
                scorecard_pb2.INCOMPLETE_METRIC_COVERAGE,
                f"{metric.id}: computed on {metric.sample_count} of "
                f"{metric.expected_sample_count} samples; missing on {len(gaps)}: "
                f"{_listed(gaps)} (first reason: {first})", metric.id))
    return blockers


def internal_error_blockers(coverage: scorecard_pb2.Coverage) -> List[scorecard_pb2.Blocker]:
    if not coverage.internal_error_sample_ids:
        return []
    return [card_lib.blocker(
        scorecard_pb2.INTERNAL_ERRORS,
        f"{len(coverage.internal_error_sample_ids)} samples failed on a worldeval bug: "
        + _listed(coverage.internal_error_sample_ids))]
