"""A scorecard's unavailable metrics grouped by cause for people to read: every metric
whose checkpoint is missing is in one group with one `//tools:assets` fetch command; the
others are grouped by their identical reason (a missing judge key, a missing package, a
metric not selected). The scorecard keeps each metric's own reason; this is a view."""

import dataclasses
import re
from typing import Dict, List, Tuple

from proto import scorecard_pb2

WEIGHTS = "missing weights"
# The resolver's words (metrics/checkpoints/resolver.py) and preflight's
# (benchmarks/common/preflight_checks.py) for a checkpoint that is not here.
_MISSING_CHECKPOINT = re.compile(r"checkpoint (\S+) \([^)]*\) not found")


@dataclasses.dataclass(frozen=True)
class UnavailableGroup:
    cause: str                   # WEIGHTS, or the reason its metrics share
    metric_ids: Tuple[str, ...]
    checkpoints: Tuple[str, ...] = ()  # WEIGHTS: the missing checkpoints' names
    fix: str = ""                # WEIGHTS: one command; otherwise the reason says what to do


def fetch_command(benchmark_id: str, metric_ids, checkpoint_dir: str = "") -> str:
    """One command that fetches the checkpoints of every given metric."""
    cache = f" --cache_dir={checkpoint_dir}" if checkpoint_dir else ""
    return (f"./bazelw run //tools:assets -- fetch --benchmark={benchmark_id} "
            f"--metrics={','.join(metric_ids)}{cache}")


def missing_checkpoints(reason: str) -> List[str]:
    """The names of the checkpoints a reason says are missing (none: another cause)."""
    return list(dict.fromkeys(_MISSING_CHECKPOINT.findall(reason)))


def grouped(card: scorecard_pb2.Scorecard) -> List[UnavailableGroup]:
    """The missing-weights group first (if any), then one group per distinct reason, in
    order of first appearance; a metric reported for several splits counts once."""
    weights: Dict[str, None] = {}
    checkpoints: Dict[str, None] = {}
    others: Dict[str, Dict[str, None]] = {}
    for m in card.metrics:
        if m.available:
            continue
        names = missing_checkpoints(m.unavailable_reason)
        if names:
            weights.setdefault(m.id, None)
            checkpoints.update(dict.fromkeys(names))
        else:
            others.setdefault(m.unavailable_reason or "(no reason recorded)", {}).setdefault(
                m.id, None)
    groups = []
    if weights:
        groups.append(UnavailableGroup(
            WEIGHTS, tuple(weights), tuple(checkpoints),
            fetch_command(card.benchmark_id, weights,
                          card.run.flags.get("checkpoint_dir", ""))))
    groups += [UnavailableGroup(reason, tuple(ids)) for reason, ids in others.items()]
    return groups


def group_of(groups: List[UnavailableGroup]) -> Dict[str, int]:
    """Metric id -> the number (from 1) of its group."""
    return {mid: i for i, g in enumerate(groups, start=1) for mid in g.metric_ids}


def metrics_text(ids: Tuple[str, ...], brief: bool = False) -> str:
    """"a", "3 metrics: a, b, c", or with `brief` "3 metrics" (where each metric's row
    already points to its group)."""
    if len(ids) == 1:
        return ids[0]
    return f"{len(ids)} metrics" + ("" if brief else f": {', '.join(ids)}")


def describe(group: UnavailableGroup, brief: bool = False) -> str:
    """The group in one line (the fix, for missing weights, goes on its own line)."""
    which = metrics_text(group.metric_ids, brief)
    if group.cause == WEIGHTS:
        n = len(group.checkpoints)
        return (f"{which}: {WEIGHTS} ({n} checkpoint{'s' if n > 1 else ''}: "
                f"{', '.join(group.checkpoints)})")
    return f"{which}: {group.cause}"
