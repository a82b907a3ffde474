"""A scorecard's eligibility blockers grouped for people to read: one entry per reason and
detail, naming every metric it holds for (one unverified backend often blocks several
metrics with the same words). The scorecard keeps one blocker per metric; this is a view."""

import dataclasses
from typing import Dict, Iterable, List, Tuple

from proto import scorecard_pb2


@dataclasses.dataclass(frozen=True)
class BlockerGroup:
    reason: str                  # the BlockingReason's name
    detail: str
    metric_ids: Tuple[str, ...]  # empty for a run-level blocker


def grouped(blocking: Iterable[scorecard_pb2.Blocker]) -> List[BlockerGroup]:
    """The blockers with equal reason and detail merged, in order of first appearance."""
    order: Dict[Tuple[int, str], List[str]] = {}
    for b in blocking:
        ids = order.setdefault((b.reason, b.detail), [])
        if b.metric_id and b.metric_id not in ids:
            ids.append(b.metric_id)
    return [BlockerGroup(scorecard_pb2.BlockingReason.Name(reason), detail, tuple(ids))
            for (reason, detail), ids in order.items()]


def metrics_text(group: BlockerGroup) -> str:
    """"a" or "3 metrics: a, b, c" ("" for a run-level blocker)."""
    if len(group.metric_ids) < 2:
        return "".join(group.metric_ids)
    return f"{len(group.metric_ids)} metrics: {', '.join(group.metric_ids)}"
