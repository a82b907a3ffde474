"""A scorecard's summary on stdout: a compact table for the terminal (the default), or
markdown / JSON to paste into papers and pull requests (`--format`, every runner and
importer). The full scorecard is always the file the run wrote; the summary is a view.
"""

import json
import sys
from typing import Dict, List

from absl import flags

from benchmarks.common import blockers as blockers_lib
from benchmarks.common import unavailable as unavailable_lib
from proto import scorecard_pb2

FORMAT = flags.DEFINE_enum(
    "format", "table", ["table", "markdown", "json"],
    "How the summary printed at the end looks: 'table' (fixed-width, for the terminal), "
    "'markdown' (a pipe table with 95% intervals) or 'json' (stdout is one JSON object).")


def _fmt(value: float) -> str:
    return f"{value:.4f}"


def format_summary(card: scorecard_pb2.Scorecard) -> str:
    """A table of the metrics, the unavailable ones grouped by cause (one line and one fix
    per cause), then coverage, verification and the files written."""
    scope = scorecard_pb2.VerificationScope.Name(card.verification.scope)
    lines = [f"{card.benchmark_id} · model {card.model_name} · scope {scope}"
             f" · leaderboard-eligible: {'yes' if card.verification.leaderboard_eligible else 'no'}"]
    groups = unavailable_lib.grouped(card)
    group_of = unavailable_lib.group_of(groups)
    width = max([len(m.id) for m in card.metrics] + [6])
    lines.append(f"  {'metric'.ljust(width)}  {'value':>10}  {'n':>4}  unit    backend / status")
    for m in card.metrics:
        if m.available:
            backend = m.backend.name + ("" if m.backend.official else " (NOT official)")
            lines.append(f"  {m.id.ljust(width)}  {_fmt(m.value):>10}  {m.sample_count:>4}  "
                         f"{m.unit:<6}  {backend}")
        else:
            lines.append(f"  {m.id.ljust(width)}  {'—':>10}  {'':>4}  {m.unit:<6}  "
                         f"unavailable [{group_of[m.id]}]")
    if groups:
        lines.append("unavailable, by cause (each metric's own reason is in the scorecard):")
    for i, g in enumerate(groups, start=1):
        lines.append(f"  [{i}] {unavailable_lib.describe(g, brief=True)}")
        if g.fix:
            lines.append(f"      fix: {g.fix}")
    cov = card.coverage
    lines.append(f"coverage: {cov.evaluated} evaluated, {cov.failed} failed, "
                 f"{len(cov.missing_sample_ids)} missing of {cov.expected} expected"
                 + (f" ({cov.expected_source})" if cov.expected_source else ""))
    if cov.failed_sample_ids:
        lines.append("  failed: " + ", ".join(cov.failed_sample_ids))
    unavailable = list(dict.fromkeys(b.metric_id for b in card.verification.blocking
                                     if b.reason == scorecard_pb2.METRIC_UNAVAILABLE))
    for g in blockers_lib.grouped(card.verification.blocking):
        if g.reason != "METRIC_UNAVAILABLE":
            which = blockers_lib.metrics_text(g)
            lines.append(f"  not leaderboard-eligible: {g.reason}"
                         + (f" ({which})" if which and len(g.metric_ids) > 1 else "")
                         + f": {g.detail}")
    if unavailable:
        lines.append(f"  not leaderboard-eligible: METRIC_UNAVAILABLE: "
                     f"{len(unavailable)} leaderboard metric(s) unavailable (above)")
    for note in card.notes:
        lines.append(f"note: {note}")
    for name, path in sorted(card.output_files.items()):
        lines.append(f"wrote {name}: {path}")
    return "\n".join(lines)


def announce(message: str) -> None:
    """A line for the user before the run (e.g. "evaluating the bundled sample"): stdout
    with the table, stderr with markdown or JSON, which keep stdout to the summary."""
    table = not flags.FLAGS.is_parsed() or FORMAT.value == "table"
    print(message, file=sys.stdout if table else sys.stderr)


def _scope(card: scorecard_pb2.Scorecard) -> str:
    return scorecard_pb2.VerificationScope.Name(card.verification.scope)


def _interval(m: scorecard_pb2.MetricResult):
    ci = m.ci95
    return None if (ci.low == 0 and ci.high == 0) or not m.available else [ci.low, ci.high]


def _blockers(card: scorecard_pb2.Scorecard) -> List[Dict[str, str]]:
    return [{"reason": scorecard_pb2.BlockingReason.Name(b.reason), "metric_id": b.metric_id,
             "detail": b.detail} for b in card.verification.blocking]


def summary_dict(card: scorecard_pb2.Scorecard) -> dict:
    """What the JSON summary holds (metrics in the scorecard's order)."""
    cov = card.coverage
    return {
        "benchmark_id": card.benchmark_id, "benchmark_version": card.benchmark_version,
        "model_name": card.model_name, "scope": _scope(card),
        "leaderboard_eligible": card.verification.leaderboard_eligible,
        "metrics": [{"id": m.id, "display_name": m.display_name,
                     "value": m.value if m.available else None, "ci95": _interval(m),
                     "ci95_method": m.ci95_method if _interval(m) else "",
                     "n": m.sample_count, "unit": m.unit,
                     "higher_is_better": m.higher_is_better, "available": m.available,
                     "unavailable_reason": m.unavailable_reason, "backend": m.backend.name,
                     "official": m.backend.official} for m in card.metrics],
        "coverage": {"expected": cov.expected, "evaluated": cov.evaluated,
                     "failed": cov.failed, "missing": len(cov.missing_sample_ids)},
        "blocking": _blockers(card), "notes": list(card.notes),
        "output_files": dict(sorted(card.output_files.items())),
    }


def format_json(card: scorecard_pb2.Scorecard) -> str:
    return json.dumps(summary_dict(card), indent=2)


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def format_markdown(card: scorecard_pb2.Scorecard) -> str:
    """A pipe table (value, 95% interval, n, unit, direction, backend), then coverage and
    eligibility, for papers and pull requests."""
    eligible = "yes" if card.verification.leaderboard_eligible else "no"
    lines = [f"**{card.benchmark_id}** · model `{card.model_name}` · scope {_scope(card)} · "
             f"leaderboard-eligible: {eligible}", "",
             "| metric | value | 95% interval | n | unit | better | backend |",
             "| --- | ---: | --- | ---: | --- | --- | --- |"]
    for m in card.metrics:
        better = "higher" if m.higher_is_better else "lower"
        if m.available:
            ci = _interval(m)
            backend = m.backend.name + ("" if m.backend.official else " (NOT official)")
            boot = " (bootstrap)" if "bootstrap" in m.ci95_method else ""
            row = [m.id, _fmt(m.value),
                   f"[{_fmt(ci[0])}, {_fmt(ci[1])}]{boot}" if ci else "—",
                   str(m.sample_count), m.unit, better, backend]
        else:
            row = [m.id, "—", "—", "", m.unit, better, "unavailable: " + m.unavailable_reason]
        lines.append("| " + " | ".join(_cell(c) for c in row) + " |")
    cov = card.coverage
    lines += ["", f"Coverage: {cov.evaluated} evaluated, {cov.failed} failed, "
              f"{len(cov.missing_sample_ids)} missing of {cov.expected} expected."]
    for g in blockers_lib.grouped(card.verification.blocking):
        which = blockers_lib.metrics_text(g)
        lines.append(f"- not leaderboard-eligible: {g.reason}"
                     + (f" ({which})" if which else "")
                     + (f": {_cell(g.detail)}" if g.detail else ""))
    lines += [f"- note: {_cell(note)}" for note in card.notes]
    return "\n".join(lines)


FORMATS = {"table": format_summary, "markdown": format_markdown, "json": format_json}


def render(card: scorecard_pb2.Scorecard) -> str:
    """The summary in the format --format asks for (the table before flags are parsed)."""
    return FORMATS[FORMAT.value if flags.FLAGS.is_parsed() else "table"](card)
