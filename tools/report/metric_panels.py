"""Report panels about metrics across runs: the headline table, charts, unavailable
metrics with reasons, and the comparisons of each run with the first."""

from typing import Dict, List, Sequence

from benchmarks.common import unavailable as unavailable_lib
from proto import scorecard_pb2
from tools.report import charts
from tools.report import compare_lib
from tools.report import html_util as h
from tools.report import runs as runs_lib


def metric_keys(runs: Sequence[runs_lib.Run]) -> List[str]:
    """Every metric key, in the order of the first run that has it."""
    keys: Dict[str, None] = {}
    for run in runs:
        for m in run.card.metrics:
            keys.setdefault(runs_lib.metric_key(m), None)
    return list(keys)


def results_by_key(run: runs_lib.Run) -> Dict[str, scorecard_pb2.MetricResult]:
    return {runs_lib.metric_key(m): m for m in run.card.metrics}


def trust(m: scorecard_pb2.MetricResult) -> str:
    """The backend's three trust facts, each shown as yes/no."""
    b = m.backend
    parity_tip = b.parity.evidence if b.parity.verified else "no parity evidence recorded"
    return " · ".join([
        h.yes_no(b.official, "official", "NOT official", b.note),
        h.yes_no(b.parity.verified, "parity verified", "parity unverified", parity_tip),
        h.yes_no(b.digest_pinned, "digest pinned", "digest not pinned")])


def _interval_text(m: scorecard_pb2.MetricResult) -> str:
    """The interval's method as the scorecard records it (scorecards written before
    ci95_method existed carry normal intervals)."""
    if not m.HasField("ci95"):
        return "none (n < 2)"
    return m.ci95_method or "normal approximation"


def headline(runs: Sequence[runs_lib.Run]) -> str:
    rows = []
    causes = [unavailable_lib.group_of(unavailable_lib.grouped(run.card)) for run in runs]
    for key in metric_keys(runs):
        for i, run in enumerate(runs):
            m = results_by_key(run).get(key)
            if m is None:
                continue
            star = " ★" if m.leaderboard_metric else ""
            name = h.cell(f"{h.esc(m.display_name or m.id)}{star}<br>"
                          f'<code class="muted">{h.esc(key)}</code>', raw=True)
            direction = "↑ higher better" if m.higher_is_better else "↓ lower better"
            if not m.available:
                rows.append([name, h.cell(run.label), h.number_cell(None, i, key, "value"),
                             h.cell("unavailable", cls="no"), h.cell(""), h.cell(m.unit),
                             h.cell(direction),
                             h.cell(f"cause [{causes[i][m.id]}] in Unavailable metrics", cls="small")])
                continue
            ci = m.ci95 if m.HasField("ci95") else None
            low, high = (ci.low, ci.high) if ci is not None else (None, None)
            rows.append([
                name, h.cell(run.label), h.number_cell(m.value, i, key, "value"),
                h.interval_cell(low, high, i, key),
                h.number_cell(float(m.sample_count), i, key, "n"),
                h.cell(m.unit), h.cell(direction),
                h.cell(f"{h.esc(m.backend.name or '—')}: {trust(m)}<br>"
                       f'<span class="muted">interval: {_interval_text(m)}</span>',
                       raw=True, cls="small")])
    headers = ["metric", "run", "value", "95% interval", "n", "unit", "direction",
               "backend / trust"]
    legend = ('<p class="small muted">★ leaderboard metric. Trust: official algorithm and '
              "weights; parity with the official implementation verified; checkpoint "
              "digest pinned. Intervals are the scorecard's 95% intervals of the mean over "
              "samples: the normal approximation, or a seeded percentile bootstrap where the "
              "per-sample values are skewed; each row says which.</p>")
    return h.panel("headline", "Headline metrics", h.table(headers, rows) + legend)


def chart_panel(runs: Sequence[runs_lib.Run]) -> str:
    blocks = []
    labels = [run.label for run in runs]
    for key in metric_keys(runs):
        results = [results_by_key(run).get(key) for run in runs]
        if not any(m is not None and m.available for m in results):
            continue
        first = next(m for m in results if m is not None)
        values = [m.value if m is not None and m.available else None for m in results]
        intervals = [(m.ci95.low, m.ci95.high) if m is not None and m.available and
                     m.HasField("ci95") else None for m in results]
        samples = [sorted(runs_lib.per_sample_values(run, m).values()) if m is not None
                   else [] for run, m in zip(runs, results)]
        direction = "higher is better" if first.higher_is_better else "lower is better"
        svg = charts.metric_chart(f"{first.display_name or first.id} ({direction})",
                                  first.unit, labels, values, intervals, samples)
        blocks.append(f'<div class="chart" id="chart-{h.esc(key)}">{svg}</div>')
    body = "".join(blocks) or '<p class="muted">No metric has a value in any run.</p>'
    return h.panel("charts", "Charts", body)


def unavailable_panel(runs: Sequence[runs_lib.Run]) -> str:
    """Per run, one row per cause (all missing weights: one row, one fetch command); each
    metric's own reason stays in its scorecard. Then metrics missing on some samples."""
    rows = []
    for run in runs:
        for i, g in enumerate(unavailable_lib.grouped(run.card), start=1):
            if g.cause == unavailable_lib.WEIGHTS:
                why = h.cell(f"[{i}] {unavailable_lib.WEIGHTS} ({h.esc(', '.join(g.checkpoints))})"
                             f"<br>fix: <code>{h.esc(g.fix)}</code>", raw=True, cls="small")
            else:
                why = h.cell(f"[{i}] {g.cause}", cls="small")
            rows.append([h.cell(run.label),
                         h.cell(unavailable_lib.metrics_text(g.metric_ids)), why])
    missing = [[h.cell(run.label), h.cell(runs_lib.metric_key(m)),
                h.cell(f"missing on {len(m.missing_sample_ids)} of "
                       f"{m.expected_sample_count} samples: " + "; ".join(
                           f"{s}: {m.missing_reasons.get(s, '?')}"
                           for s in m.missing_sample_ids[:10]), cls="small")]
               for run in runs for m in run.card.metrics
               if m.available and m.missing_sample_ids]
    body = (h.table(["run", "metrics", "why unavailable"], rows + missing) if rows or missing
            else '<p class="yes">Every metric is available in every run.</p>')
    return h.panel("unavailable", "Unavailable metrics", body)


def comparison_panel(comparisons: Sequence[compare_lib.Comparison]) -> str:
    blocks = []
    for c_index, cmp in enumerate(comparisons, start=1):
        warnings = "".join(f'<p class="warn">{h.esc(w)}</p>' for w in cmp.warnings)
        flag = ('<p class="warn"><b>Flagged:</b> the runs differ; not a like-for-like '
                "comparison.</p>" if cmp.flagged else "")
        rows = []
        for m in cmp.metrics:
            verdict = (f"not compared: {m.unavailable}" if m.unavailable else
                       f"{m.better} better" if m.excludes_zero else
                       "interval includes 0" if m.low is not None else "")
            rows.append([
                h.cell(m.key), h.number_cell(m.mean_a, c_index, m.key, "mean_a"),
                h.number_cell(m.mean_b, c_index, m.key, "mean_b"),
                h.number_cell(m.difference, c_index, m.key, "difference"),
                h.interval_cell(m.low, m.high, c_index, m.key, ("low", "high")),
                h.number_cell(float(m.paired), c_index, m.key, "paired"),
                h.cell(verdict, cls="yes" if m.excludes_zero else ""),
                h.cell("; ".join(m.warnings), cls="small warn" if m.warnings else "")])
        headers = ["metric", "A", "B", "B − A", "paired 95% interval", "paired n", "verdict",
                   "warnings"]
        blocks.append(f'<div class="comparison" data-comparison="{c_index}">'
                      f"<h3>A = {h.esc(cmp.a)}, B = {h.esc(cmp.b)}</h3>"
                      f'<p class="small muted">{h.esc(cmp.interval_method)}</p>'
                      f"{flag}{warnings}{h.table(headers, rows)}</div>")
    return h.panel("comparison", "Comparison (B minus A, paired over shared samples)",
                   "".join(blocks))
