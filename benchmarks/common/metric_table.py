"""A benchmark's metric table: each metric declared once, the rest derived or checked.

A benchmark package lists its metrics as `MetricSpec`s (benchmarks/common/scorecard.py:
id, display name, unit, direction, leaderboard membership, aggregation, plus the official
column, the step and family that compute it, its backends and the official output files
that carry it) in one `MetricTable`. Runners select metrics through it (`select`: unknown
ids get the valid ones and a "did you mean"), and one test per benchmark checks every
parallel list (output columns, gate steps, runtime profile, catalog) against it.

A table may also declare `MetricGroup`s: metrics that belong in one figure because they
are one measure across conditions (MemoBench's PSNR/SSIM/LPIPS in its Visible,
Disappeared and Reappear phases). Reports draw each group as one grouped figure.
"""

import dataclasses
import difflib
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

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


class MetricTable:
    """The metrics of one benchmark, in their official order, and their figure groups."""

    def __init__(self, benchmark: str, specs: Sequence[MetricSpec],
                 groups: Sequence[MetricGroup] = ()):
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

    def select(self, requested: Optional[Iterable[str]], flag: str = "--metrics") -> List[str]:
        """The requested ids in the order given (all, when none are), or an InputError
        naming the unknown ones with the closest valid id and the full list."""
        if not requested:
            return list(self.ids)
        requested = list(requested)
        unknown = [m for m in requested if m not in self.by_id]
        if unknown:
            hints = []
            for metric in unknown:
                close = difflib.get_close_matches(metric, self.ids, n=1, cutoff=0.5)
                folded = [m for m in self.ids if m.lower() == metric.lower()]
                guess = (folded or close or [None])[0]
                hints.append(f"{metric} (did you mean {guess}?)" if guess else metric)
            raise InputError(flag, f"{self.benchmark} metric ids: " + ", ".join(self.ids),
                             ", ".join(hints))
        return requested
