"""--max_side: a cap on the longest side of every decoded frame, and what a run with it
set must say.

The official protocols of VMBench and MiraBench read every frame at native resolution
(MemoBench's has its own --max_side rule, 640; see memobench/verification.py). A cap
shrinks each frame as it is decoded (resize_max_side: INTER_AREA, never upscaled), which
bounds a sample's memory but changes values. Such a run is therefore recorded as a
protocol deviation (official_protocol false, never leaderboard-eligible) and its samples
carry another config digest, so --resume never mixes capped and native samples.
"""

from typing import Dict, List, Optional

from benchmarks.common import scorecard as card_lib
from proto import scorecard_pb2


def deviations(max_side: Optional[int]) -> List[str]:
    """The scorecard deviation of a run with `max_side` set (none when unset)."""
    if max_side is None:
        return []
    return [f"--max_side={max_side}: every frame shrunk as it is decoded so that its "
            f"longest side is at most {max_side} (INTER_AREA, never upscaled), before every "
            "metric; the official code reads native resolution"]


def blockers(max_side: Optional[int]) -> List[scorecard_pb2.Blocker]:
    """A PROTOCOL_DEVIATION blocker per deviation (see `deviations`)."""
    return [card_lib.blocker(scorecard_pb2.PROTOCOL_DEVIATION, d) for d in deviations(max_side)]


def digest_settings(max_side: Optional[int]) -> Dict[str, int]:
    """The config-digest entry: only when set, so stores of native runs keep their digest."""
    return {} if max_side is None else {"max_side": max_side}
