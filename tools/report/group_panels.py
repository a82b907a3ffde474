"""The report's grouped figures: a benchmark's metric groups (its metric table's
`MetricGroup`s, e.g. MemoBench's fidelity by phase), each drawn as one figure across its
conditions and runs, with the numbers beside it in a table."""

from typing import Dict, Optional, Sequence, Tuple

from benchmarks.common.metric_table import MetricGroup
from proto import scorecard_pb2
from tools.catalog import registry
from tools.report import charts
from tools.report import html_util as h
from tools.report import runs as runs_lib

# Each registered benchmark's metric groups (empty where its table declares none).
GROUPS: Dict[str, Tuple[MetricGroup, ...]] = {
    b: tuple(t.groups) for b, t in registry.tables().items()}
FIELD = "group_value"  # the data-field of a group table's value cells


def groups_of(runs: Sequence[runs_lib.Run]) -> Tuple[MetricGroup, ...]:
    return GROUPS.get(runs[0].card.benchmark_id, ())


def _pooled(run: runs_lib.Run) -> Dict[str, scorecard_pb2.MetricResult]:
    """The run's metrics over all splits (the groups are drawn pooled)."""
    return {m.id: m for m in run.card.metrics if not m.split}


def _cell(m: Optional[scorecard_pb2.MetricResult]):
    if m is None or not m.available:
        return None
    if m.HasField("ci95"):
        return m.value, m.ci95.low, m.ci95.high
    return m.value, None, None


def _figure(group: MetricGroup, runs: Sequence[runs_lib.Run]) -> str:
    by_run = [_pooled(run) for run in runs]
    first = {}
    for results in by_run:
        for m_id in group.metric_ids:
            if m_id in results:
                first.setdefault(m_id, results[m_id])
    rows = []
    for name, ids in group.rows:
        spec = next((first[m] for m in ids if m in first), None)
        rows.append((name, spec.unit if spec else "", spec.higher_is_better if spec else True))
    cells = [[[_cell(results.get(m)) for m in ids] for _, ids in group.rows]
             for results in by_run]
    svg = charts.group_chart(group.title, group.columns, rows,
                             [run.label for run in runs], cells)
    table_rows = []
    for i, (run, results) in enumerate(zip(runs, by_run)):
        for name, ids in group.rows:
            line = [h.cell(name), h.cell(run.label)]
            for m_id in ids:
                m = results.get(m_id)
                value = m.value if m is not None and m.available else None
                line.append(h.number_cell(value, i, m_id, FIELD))
            table_rows.append(line)
    table = h.table(["measure", "run", *group.columns], table_rows)
    note = ('<p class="small muted">Pooled over splits; points are the scorecard\'s values '
            "with its 95% intervals; a measure with no value in any run reads "
            "\"unavailable\" (its reason is in the Unavailable panel).</p>")
    return (f'<div class="chart" id="group-{h.esc(group.id)}">{svg}</div>'
            f"{table}{note}")


def groups_panel(runs: Sequence[runs_lib.Run]) -> str:
    """The "groups" panel: every group of the runs' benchmark (call only when it has any)."""
    body = "".join(_figure(group, runs) for group in groups_of(runs))
    return h.panel("groups", "Grouped figures", body)
