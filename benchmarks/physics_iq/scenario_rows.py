"""The official CSV's rows from scored samples (spec §8).

Upstream writes one row per scenario, in the order of the scenario's first appearance in
the sorted real-folder listing (file names start with the take-1 id, so: by the smallest
id of its views), with the 12 values of each of the three views. A scenario whose views
did not all score has no row (upstream raises there, :411-415); `scenario_rows` names the
views each such scenario lacks. A view the engine marked an internal error (a value of
ours outside its range: computed_values.py) counts as not scored.
"""

from typing import Dict, List, Sequence, Tuple

from benchmarks.common import sample_loop
from benchmarks.physics_iq import sample as sample_lib
from benchmarks.physics_iq.csv_file import VIEWS, ScenarioRow
from proto import scorecard_pb2


def scenario_rows(samples: Sequence[scorecard_pb2.SampleScore]
                  ) -> Tuple[List[ScenarioRow], Dict[str, List[str]]]:
    """(rows of the scenarios with all three views scored, {scenario: views lacking})."""
    views: Dict[str, Dict[str, scorecard_pb2.SampleScore]] = {}
    first_id: Dict[str, str] = {}
    for s in samples:
        if s.error or sample_loop.is_internal_error(s):  # a value of ours was impossible
            continue
        scenario, view = s.diagnostics["scenario"], s.diagnostics["view"]
        views.setdefault(scenario, {})[view] = s
        first_id[scenario] = min(first_id.get(scenario, s.diagnostics["id"]),
                                 s.diagnostics["id"])
    rows, lacking = [], {}
    for scenario in sorted(views, key=lambda name: first_id[name]):
        missing = [v for v in VIEWS if v not in views[scenario]]
        if missing:
            lacking[scenario] = missing
            continue
        rows.append(ScenarioRow(scenario, {
            v: sample_lib.official_values(views[scenario][v]) for v in VIEWS}))
    return rows, lacking
