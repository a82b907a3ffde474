"""Report panels about each run: a summary, per-sample results (worst samples per metric,
errors), coverage, eligibility blockers and provenance."""

from typing import List, Sequence

from benchmarks.common import blockers as blockers_lib
from proto import scorecard_pb2
from tools.report import html_util as h
from tools.report import runs as runs_lib

_SCOPE = scorecard_pb2.VerificationScope.Name


def sample_anchor(run_index: int, sample_key: str) -> str:
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in sample_key)
    return f"sample-{run_index}-{safe}"


def runs_panel(runs: Sequence[runs_lib.Run]) -> str:
    rows = []
    for run in runs:
        card, ver = run.card, run.card.verification
        rows.append([
            h.cell(run.label), h.cell(card.benchmark_version), h.cell(_SCOPE(ver.scope)),
            h.cell(h.yes_no(ver.official_protocol), raw=True),
            h.cell(h.yes_no(ver.leaderboard_eligible), raw=True),
            h.cell(f"{card.coverage.evaluated} of {card.coverage.expected}"),
            h.cell(card.run.finished_at or card.run.started_at),
            h.cell(f"<code>{h.esc(run.path)}</code>", raw=True)])
    headers = ["run", "benchmark version", "verification", "official protocol",
               "leaderboard-eligible", "evaluated", "finished", "scorecard"]
    return h.panel("runs", "Runs", h.table(headers, rows))


def _worst(run: runs_lib.Run, m: scorecard_pb2.MetricResult, count: int) -> List[tuple]:
    values = runs_lib.per_sample_values(run, m)
    order = sorted(values.items(), key=lambda kv: (kv[1], kv[0]),
                   reverse=not m.higher_is_better)
    return order[:count]


def samples_panel(runs: Sequence[runs_lib.Run], worst: int) -> str:
    """Per run: the `worst` samples of each metric (links to their rows below), the rows
    of those samples with every metric and diagnostic, and the failed samples."""
    blocks = []
    for i, run in enumerate(runs):
        if run.samples is None:
            blocks.append(f"<h3>{h.esc(run.label)}</h3><p class=\"muted\">No per-sample "
                          f"scores: {h.esc(run.samples_note)}</p>")
            continue
        by_key = {runs_lib.sample_key(s): s for s in run.samples}
        worst_rows, shown = [], {}
        for m in run.card.metrics:
            for rank, (key, value) in enumerate(_worst(run, m, worst), start=1):
                shown.setdefault(key, None)
                link = f'<a href="#{sample_anchor(i, key)}">{h.esc(key)}</a>'
                worst_rows.append([h.cell(runs_lib.metric_key(m)), h.cell(str(rank)),
                                   h.cell(link, raw=True),
                                   h.number_cell(value, i, f"{runs_lib.metric_key(m)}|{key}",
                                                 "sample_value")])
        detail = [_sample_row(i, by_key[key]) for key in shown]
        errors = [[h.cell(runs_lib.sample_key(s)), h.cell(s.error, cls="small")]
                  for s in run.samples if s.error]
        blocks.append(
            f"<h3>{h.esc(run.label)}: {len(run.samples)} samples</h3>"
            + (h.table(["metric", "rank", "sample", "value"], worst_rows)
               if worst_rows else '<p class="muted">No per-sample metric values.</p>')
            + ("<h4>Rows of those samples</h4>"
               + h.table(["sample", "scene", "metrics", "diagnostics"], detail)
               if detail else "")
            + ("<h4>Failed samples</h4>" + h.table(["sample", "error"], errors)
               if errors else '<p class="yes">No sample failed.</p>'))
    intro = (f'<p class="small muted">The {worst} worst samples of each metric (lowest '
             "where higher is better, highest where lower is better).</p>")
    return h.panel("samples", "Per-sample results", intro + "".join(blocks))


def _sample_row(run_index: int, s: scorecard_pb2.SampleScore) -> List[str]:
    metrics = ", ".join(f"{k}={v:.4g}" for k, v in sorted(s.metrics.items()))
    diags = "; ".join(f"{k}: {v}" for k, v in sorted(s.diagnostics.items()))
    key = runs_lib.sample_key(s)
    return [f'<td id="{sample_anchor(run_index, key)}">{h.esc(key)}</td>', h.cell(s.scene),
            h.cell(metrics, cls="small"), h.cell(diags, cls="small")]


def coverage_panel(runs: Sequence[runs_lib.Run]) -> str:
    rows = []
    for i, run in enumerate(runs):
        cov = run.card.coverage
        splits = ", ".join(f"{k}: {v}" for k, v in sorted(cov.evaluated_by_split.items()))
        rows.append([
            h.cell(run.label), h.number_cell(float(cov.expected), i, "coverage", "expected"),
            h.number_cell(float(cov.evaluated), i, "coverage", "evaluated"),
            h.number_cell(float(cov.failed), i, "coverage", "failed"),
            h.number_cell(float(len(cov.missing_sample_ids)), i, "coverage", "missing"),
            h.cell(splits), h.cell(cov.expected_source),
            h.cell(", ".join(list(cov.missing_sample_ids)[:20]), cls="small")])
    headers = ["run", "expected", "evaluated", "failed", "missing", "by split",
               "expected from", "missing samples (first 20)"]
    return h.panel("coverage", "Coverage", h.table(headers, rows))


def _blocker_groups(run: runs_lib.Run) -> List[blockers_lib.BlockerGroup]:
    """The run's grouped blockers, its unavailable metrics as one (their causes and fixes
    are in the Unavailable metrics panel)."""
    groups = blockers_lib.grouped(run.card.verification.blocking)
    unavailable = [g for g in groups if g.reason == "METRIC_UNAVAILABLE"]
    if len(unavailable) < 2:
        return groups
    ids = tuple(dict.fromkeys(i for g in unavailable for i in g.metric_ids))
    merged = blockers_lib.BlockerGroup("METRIC_UNAVAILABLE",
                                       "why, and the fixes: the Unavailable metrics panel", ids)
    return [g for g in groups if g.reason != "METRIC_UNAVAILABLE"] + [merged]


def blockers_panel(runs: Sequence[runs_lib.Run]) -> str:
    rows = [[h.cell(run.label), h.cell(g.reason), h.cell(blockers_lib.metrics_text(g)),
             h.cell(g.detail, cls="small")]
            for run in runs for g in _blocker_groups(run)]
    deviations = [[h.cell(run.label), h.cell("deviation"), h.cell(""), h.cell(d, cls="small")]
                  for run in runs for d in run.card.verification.deviations]
    body = (h.table(["run", "reason", "metric", "detail"], rows + deviations)
            if rows or deviations else '<p class="yes">No blockers: leaderboard-eligible.</p>')
    return h.panel("blockers", "Leaderboard eligibility blockers and deviations", body)


def _pin_words(ref) -> str:
    """What a CheckpointRef's digest was checked against, in the report's words."""
    if ref.pinned_digest_matched:
        return " (pinned digest matched)"
    if ref.pin == "lock":
        return (f" (digest not pinned; unchanged since its lock file {ref.lock_file}, "
                "which does not show these are the official weights)")
    return " (digest not pinned)"


def provenance_panel(runs: Sequence[runs_lib.Run]) -> str:
    blocks = []
    for run in runs:
        p = run.card.provenance
        facts = [("code revision", p.code_revision + (" (dirty)" if p.code_dirty else "")),
                 ("worldeval version", p.worldeval_version), ("lock digest", p.lock_digest),
                 ("python", p.python_version), ("device", run.card.run.device),
                 ("command", run.card.run.command)]
        facts += [(f"input {k}", v) for k, v in sorted(p.inputs.items())]
        facts += [(f"checkpoint ({c.metric_id})",
                   f"{c.id} rev {c.revision or '—'} sha256 {c.sha256 or '—'}"
                   + _pin_words(c)) for c in p.checkpoints]
        facts += [("note", n) for n in run.card.notes]
        rows = [[h.cell(k), h.cell(f"<code>{h.esc(v)}</code>", raw=True)] for k, v in facts if v]
        blocks.append(f"<h3>{h.esc(run.label)}</h3>" + h.table(["", ""], rows))
    return h.panel("provenance", "Provenance", "".join(blocks))
