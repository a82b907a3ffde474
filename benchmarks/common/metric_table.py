"""A benchmark's metric table: each metric declared once, the rest derived or checked.

A benchmark package lists its metrics as `MetricSpec`s (benchmarks/common/scorecard.py:
id, display name, unit, direction, leaderboard membership, aggregation, plus the official
column, the step and family that compute it, its backends and the official output files
that carry it) in one `MetricTable`. The table also says how `--metrics` chooses among
them: which ids it may name (`selectable`; all by default), the other names it takes
(`aliases`: a short name, an official pseudo-flag or a group name, each standing for one
or more ids, matched without regard to case) and whether the choice keeps the order given
or the table's (`order`). Runners select metrics only through `select` (unknown names get
the valid ones and a "did you mean"), and one test per benchmark checks every parallel
list (output columns, gate steps, runtime profile, catalog) against the table.

A table may also declare `MetricGroup`s: metrics that belong in one figure because they
are one measure across conditions (MemoBench's PSNR/SSIM/LPIPS in its Visible,
Disappeared and Reappear phases). Reports draw each group as one grouped figure.
"""

import dataclasses
import difflib
import math
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from benchmarks.common.errors import InputError
from benchmarks.common.scorecard import MetricSpec


@dataclasses.dataclass(frozen=True)
class MetricGroup:
    """Metrics drawn together: each row is one measure, its metric ids by column.

    Attributes:
      id: the group's id (an HTML id in reports).
      title: the figure's title.
      columns: the conditions, in order (e.g. the phases).
      rows: (measure name, one metric id per column), in order.
    """

    id: str
    title: str
    columns: Tuple[str, ...]
    rows: Tuple[Tuple[str, Tuple[str, ...]], ...]

    @property
    def metric_ids(self) -> Tuple[str, ...]:
        return tuple(m for _, ids in self.rows for m in ids)


GIVEN, TABLE_ORDER = "given", "table"  # MetricTable.order
# The official code's float arithmetic may land a hair outside an exact bound (a cosine of
# a vector with itself at 1.0000001): within this, relative to max(1, |bound|), is inside.
RANGE_SLACK = 1e-6


def not_finite(value) -> Optional[str]:
    """Why `value` cannot be a metric value at all (not a real number, NaN, +-inf), or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"{value!r} is not a number"
    if not math.isfinite(value):
        return f"{value!r} is not a finite number"
    return None


def range_text(bounds, scale: float = 1.0) -> str:
    low, high = bounds
    return ("[" + ("-inf" if low is None else f"{low * scale:g}") + ", "
            + ("inf)" if high is None else f"{high * scale:g}]"))


def _outside(value: float, bounds, scale: float) -> bool:
    low, high = bounds
    return ((low is not None and value < low * scale - RANGE_SLACK * max(1, abs(low * scale)))
            or (high is not None
                and value > high * scale + RANGE_SLACK * max(1, abs(high * scale))))


class MetricTable:
    """The metrics of one benchmark, in their official order, their figure groups, and
    how --metrics names them."""

    def __init__(self, benchmark: str, specs: Sequence[MetricSpec],
                 groups: Sequence[MetricGroup] = (),
                 aliases: Optional[Mapping[str, Sequence[str]]] = None,
                 selectable: Optional[Sequence[str]] = None, order: str = GIVEN):
        self.benchmark = benchmark
        self.specs: Tuple[MetricSpec, ...] = tuple(specs)
        self.by_id: Dict[str, MetricSpec] = {}
        for spec in self.specs:
            if spec.id in self.by_id:
                raise ValueError(f"{benchmark}: metric {spec.id} declared twice")
            self.by_id[spec.id] = spec
        self.groups: Tuple[MetricGroup, ...] = tuple(groups)
        for group in self.groups:
            bad = [ids for _, ids in group.rows if len(ids) != len(group.columns)]
            unknown = [m for m in group.metric_ids if m not in self.by_id]
            if bad or unknown:
                raise ValueError(f"{benchmark}: group {group.id}: rows of the wrong length "
                                 f"{bad} or unknown metric ids {unknown}")
        self.selectable: Tuple[str, ...] = tuple(selectable or self.ids)
        self.aliases: Dict[str, Tuple[str, ...]] = {
            name.lower(): tuple(ids) for name, ids in (aliases or {}).items()}
        self.alias_names: Tuple[str, ...] = tuple(aliases or ())
        wrong = [m for m in self.selectable + tuple(m for ids in self.aliases.values()
                                                      for m in ids)
                 if m not in self.selectable or m not in self.by_id]
        if wrong or order not in (GIVEN, TABLE_ORDER):
            raise ValueError(f"{benchmark}: selectable ids or aliases name metrics that are "
                             f"not selectable table ids: {wrong}, or order {order!r} is "
                             f"not {GIVEN!r} or {TABLE_ORDER!r}")
        self.order = order

    @property
    def ids(self) -> Tuple[str, ...]:
        return tuple(spec.id for spec in self.specs)

    @property
    def leaderboard(self) -> Tuple[MetricSpec, ...]:
        return tuple(spec for spec in self.specs if spec.leaderboard)

    def of_step(self, step: str, leaderboard_only: bool = False) -> Tuple[str, ...]:
        return tuple(spec.id for spec in self.specs if spec.step == step
                     and (spec.leaderboard or not leaderboard_only))

    def of_family(self, family: str) -> Tuple[str, ...]:
        return tuple(spec.id for spec in self.specs if spec.family == family)

    def step_of(self, metric_id: str) -> str:
        return self.by_id[metric_id].step

    def check_official_value(self, metric_id: str, value, scale: float = 1.0
                             ) -> Optional[str]:
        """None when `value` can be `metric_id`'s in the official files; else why not,
        naming the value and the range: NaN and infinities never can, nor a value outside
        the spec's official_range (times `scale`: a file holding the values x100)."""
        why = not_finite(value)
        if why:
            return f"{metric_id} {why}"
        bounds = self.by_id[metric_id].official_range
        if bounds is not None and _outside(value, bounds, scale):
            return (f"{metric_id} {value!r} is outside its official range "
                    f"{range_text(bounds, scale)}")
        return None

    def nominal_warning(self, metric_id: str, value, scale: float = 1.0) -> Optional[str]:
        """Why a value check_official_value accepts is still unusual: outside the spec's
        nominal_range (the official arithmetic can produce it, so it is kept), or None."""
        bounds = self.by_id[metric_id].nominal_range
        if bounds is None or not_finite(value) or not _outside(value, bounds, scale):
            return None
        return (f"{metric_id} {value!r} is outside its nominal range "
                f"{range_text(bounds, scale)} (kept: the official arithmetic can give it)")

    def select(self, requested: Optional[Iterable[str]], flag: str = "--metrics") -> List[str]:
        """The metric ids `requested` names (ids or aliases; all selectable ids when none),
        each once, in the order given or the table's (`order`); an InputError naming the
        unknown ones, each with the closest valid name, and the full list."""
        if not requested:
            return list(self.selectable)
        chosen, unknown = [], []
        for name in requested:
            ids = ((name,) if name in self.selectable
                   else self.aliases.get(name.lower()))
            if ids is None:
                unknown.append(name)
            chosen.extend(m for m in ids or () if m not in chosen)
        if unknown:
            names = self.selectable + self.alias_names
            hints = []
            for name in unknown:
                folded = [m for m in names if m.lower() == name.lower()]
                close = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
                guess = (folded or close or [None])[0]
                hints.append(f"{name} (did you mean {guess}?)" if guess else name)
            valid = ", ".join(self.selectable)
            if self.alias_names:
                valid += " (or " + ", ".join(self.alias_names) + ")"
            raise InputError(flag, f"{self.benchmark} metric ids: {valid}", ", ".join(hints))
        if self.order == TABLE_ORDER:
            return [m for m in self.selectable if m in chosen]
        return chosen


class ValueChecks:
    """An importer's per-row value checks against a table, and the notes they leave (the
    engine holds a runner's computed values to the same rule: computed_values.screen).

    `check(where, metric_id, value)` is None when the value may enter the mean (a nominal
    warning, if any, is recorded and the value kept), else the reason, recorded, which
    the importer gives that row's metric (its `unavailable[metric]`, or a row error).
    """

    def __init__(self, table: MetricTable, limit: int = 5):
        self.table = table
        self.limit = limit
        self.rejected: List[Tuple[str, str, object]] = []   # (where, metric, value)
        self.warned: List[Tuple[str, str, object]] = []

    def check(self, where: str, metric_id: str, value, scale: float = 1.0) -> Optional[str]:
        reason = self.table.check_official_value(metric_id, value, scale)
        if reason:
            self.rejected.append((where, metric_id, value))
            return f"{where}: {reason}"
        if self.table.nominal_warning(metric_id, value, scale):
            self.warned.append((where, metric_id, value))
        return None

    def check_finite(self, where: str, metric_id: str, value) -> Optional[str]:
        """As `check`, for a value of the metric that has no range of its own (a raw score
        the official code normalises): None when it is a finite number."""
        why = not_finite(value)
        if why:
            self.rejected.append((where, metric_id, value))
            return f"{where}: {metric_id} {why}"
        return None

    def warning(self, where: str, metric_id: str, value, scale: float = 1.0) -> Optional[str]:
        """The nominal warning of a value `check` accepted (for the row's diagnostics)."""
        why = self.table.nominal_warning(metric_id, value, scale)
        return f"{where}: {why}" if why else None

    def _listed(self, found) -> str:
        shown = "; ".join(f"{where} {metric}={value!r}" for where, metric, value
                          in found[:self.limit])
        return shown + (f"; and {len(found) - self.limit} more" if len(found) > self.limit
                        else "")

    def notes(self) -> List[str]:
        out = []
        if self.rejected:
            out.append(f"{len(self.rejected)} imported values are not finite or outside "
                       "their metric's official range; each is left out of its metric's "
                       "mean, and its row has the metric missing with the reason: "
                       + self._listed(self.rejected))
        if self.warned:
            out.append(f"{len(self.warned)} imported values are outside their metric's "
                       "nominal range, which the official arithmetic can leave; kept as "
                       "written: " + self._listed(self.warned))
        return out
