"""--num_shards / --shard_index: a deterministic split of a run's samples, for any scheduler.

A sample belongs to shard `sha256("<split>/<sample id>") mod N`, so the partition depends
only on the sample's own name: adding samples to a suite never moves the others to another
shard, and every shard of a Slurm array or Kubernetes job computes the same split without
talking to the others. `worldeval merge` (tools/merge) combines the shards' stores into one
run's outputs.
"""

import hashlib
from typing import Callable, List, Sequence, TypeVar

from benchmarks.common import scorecard as card_lib
from benchmarks.common.errors import InputError
from proto import scorecard_pb2

T = TypeVar("T")


def shard_of(split: str, sample_id: str, num_shards: int) -> int:
    """The shard (0..num_shards-1) that owns the sample."""
    digest = hashlib.sha256(f"{split}/{sample_id}".encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % num_shards


def check(num_shards: int, shard_index: int) -> None:
    """InputError (exit 2, before any work) for a shard that does not exist."""
    if num_shards < 1:
        raise InputError("--num_shards", "a positive number of shards", str(num_shards))
    if not 0 <= shard_index < num_shards:
        raise InputError("--shard_index", f"0..{num_shards - 1} (--num_shards={num_shards})",
                         str(shard_index))


def select(items: Sequence[T], key: Callable[[T], tuple], common) -> List[T]:
    """The items of this run's shard (all of them without sharding), in their order;
    `key(item)` is the sample's (split, sample id)."""
    if common.num_shards == 1:
        return list(items)
    return [item for item in items
            if shard_of(*key(item), common.num_shards) == common.shard_index]


def subset_blockers(common) -> List[scorecard_pb2.Blocker]:
    """INCOMPLETE_COVERAGE for a run that evaluates part of the suite on purpose
    (--limit, one shard); such a run is never leaderboard-eligible."""
    out = []
    if common.num_shards > 1:
        out.append(card_lib.blocker(
            scorecard_pb2.INCOMPLETE_COVERAGE,
            f"shard {common.shard_index} of {common.num_shards} (--num_shards="
            f"{common.num_shards}); `worldeval merge` combines the shards into one run"))
    if common.limit:
        out.append(card_lib.blocker(scorecard_pb2.INCOMPLETE_COVERAGE,
                                    f"--limit={common.limit}"))
    return out
