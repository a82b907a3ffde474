"""A readable summary of a scorecard for the terminal."""

from proto import scorecard_pb2


def _fmt(value: float) -> str:
    return f"{value:.4f}"


def format_summary(card: scorecard_pb2.Scorecard) -> str:
    """A table of the metrics, then coverage, verification and the files written."""
    scope = scorecard_pb2.VerificationScope.Name(card.verification.scope)
    lines = [f"{card.benchmark_id} · model {card.model_name} · scope {scope}"
             f" · leaderboard-eligible: {'yes' if card.verification.leaderboard_eligible else 'no'}"]
    width = max([len(m.id) for m in card.metrics] + [6])
    lines.append(f"  {'metric'.ljust(width)}  {'value':>10}  {'n':>4}  unit    backend / status")
    for m in card.metrics:
        if m.available:
            backend = m.backend.name + ("" if m.backend.official else " (NOT official)")
            lines.append(f"  {m.id.ljust(width)}  {_fmt(m.value):>10}  {m.sample_count:>4}  "
                         f"{m.unit:<6}  {backend}")
        else:
            lines.append(f"  {m.id.ljust(width)}  {'—':>10}  {'':>4}  {m.unit:<6}  "
                         f"unavailable: {m.unavailable_reason}")
    cov = card.coverage
    lines.append(f"coverage: {cov.evaluated} evaluated, {cov.failed} failed, "
                 f"{len(cov.missing_sample_ids)} missing of {cov.expected} expected"
                 + (f" ({cov.expected_source})" if cov.expected_source else ""))
    if cov.failed_sample_ids:
        lines.append("  failed: " + ", ".join(cov.failed_sample_ids))
    unavailable = [b.metric_id for b in card.verification.blocking
                   if b.reason == scorecard_pb2.METRIC_UNAVAILABLE]
    for b in card.verification.blocking:
        if b.reason != scorecard_pb2.METRIC_UNAVAILABLE:
            reason = scorecard_pb2.BlockingReason.Name(b.reason)
            lines.append(f"  not leaderboard-eligible: {reason}: {b.detail}")
    if unavailable:
        lines.append(f"  not leaderboard-eligible: METRIC_UNAVAILABLE: {', '.join(unavailable)}")
    for note in card.notes:
        lines.append(f"note: {note}")
    for name, path in sorted(card.output_files.items()):
        lines.append(f"wrote {name}: {path}")
    return "\n".join(lines)
