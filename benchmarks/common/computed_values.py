"""A runner's own values against its metric table: the importers' rule, applied to ours.

The importers refuse an official file's value that is NaN, an infinity or outside its
metric's `official_range`, and keep one outside only the `nominal_range` with a warning
(metric_table.ValueChecks). A value a runner computes is held to the same rule, by the
same checks, as each sample is scored (`engine.Context.loop` wraps every pass's score in
`Screened`), before the sample is stored or written to an official file:

  - an impossible value is OUR bug: the metric is taken out of the sample's metrics
    (so out of every mean), its `unavailable` reason names the sample, the metric, the
    value and the range and says it is a worldeval bug, and the sample is marked an
    internal error (sample_loop.INTERNAL_ERROR): the scorecard counts it in
    coverage.internal_error_sample_ids, the gate blocks on it and the run exits 1;
  - a value outside only the nominal range is kept as computed, with the warning under
    the sample's diagnostics[VALUE_WARNINGS].

Only the table's metric ids are checked (raw columns and diagnostics are the
benchmark's); a value inside its range is left exactly as it was.
"""

from typing import Callable, Iterable, List, Tuple

from absl import logging

from benchmarks.common import sample_loop
from benchmarks.common.metric_table import MetricTable
from benchmarks.common.metric_table import ValueChecks
from proto import scorecard_pb2

VALUE_WARNINGS = "value_warnings"  # diagnostics key: kept values outside nominal, "; "-joined
BUG = "internal error (a worldeval bug; please report it): sample "
COMPUTED = " (a value worldeval computed); left out of the metric's mean"


def where(sample: scorecard_pb2.SampleScore) -> str:
    """The sample as the scorecard names it: "split/id" ("/id" with no split)."""
    return f"{sample.split}/{sample.sample_id}"


def screen(table: MetricTable, sample: scorecard_pb2.SampleScore
           ) -> scorecard_pb2.SampleScore:
    """Checks `sample`'s values of `table`'s metrics in place (see the module docstring);
    returns it. An error row is left as it is."""
    if sample.error:
        return sample
    checks = ValueChecks(table)
    for metric_id in sorted(sample.metrics):
        if metric_id not in table.by_id:
            continue
        value = sample.metrics[metric_id]
        reason = checks.check(where(sample), metric_id, value)
        if reason:
            del sample.metrics[metric_id]
            sample.unavailable[metric_id] = BUG + reason + COMPUTED
            sample.diagnostics[sample_loop.INTERNAL_ERROR] = "1"
            logging.error("%s: %s", where(sample), sample.unavailable[metric_id])
            continue
        warning = checks.warning(where(sample), metric_id, value)
        if warning:
            sample.diagnostics[VALUE_WARNINGS] = "; ".join(
                filter(None, [sample.diagnostics.get(VALUE_WARNINGS), warning]))
    return sample


class Screened:
    """A pass's `score(item, loaded)` whose samples are screened against `table`
    (a class, not a closure: it is pickled to Ray actors with the score it wraps)."""

    def __init__(self, table: MetricTable, score: Callable):
        self.table = table
        self.score = score

    def __call__(self, item, loaded) -> scorecard_pb2.SampleScore:
        return screen(self.table, self.score(item, loaded))


def refused(samples: Iterable[scorecard_pb2.SampleScore]) -> List[Tuple[str, str, str]]:
    """(sample, metric, reason) of every value `screen` took out of `samples`."""
    return [(where(s), m, r) for s in samples for m, r in sorted(s.unavailable.items())
            if r.startswith(BUG)]


def notes(samples: Iterable[scorecard_pb2.SampleScore], limit: int = 5) -> List[str]:
    """The scorecard's note on the values `screen` took out (none when there are none)."""
    found = refused(samples)
    if not found:
        return []
    shown = "; ".join(reason[len(BUG):-len(COMPUTED)] for _, _, reason in found[:limit])
    more = f"; and {len(found) - limit} more" if len(found) > limit else ""
    return [f"{len(found)} computed values are not finite or outside their metric's "
            "official range: a worldeval bug (please report it); each is left out of its "
            f"metric's mean and its sample counted as an internal error: {shown}{more}"]
