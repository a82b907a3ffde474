"""MemoBench's sample context: the engine's SampleContext plus the clip's phases.

The family interface itself is the engine's (benchmarks/common/family.py); MemoBench's
Step 1 families read the generated frames, the phase keyframes mapped into generated
frame space, the GroundTruth record and the shared reference (GT) frames.
"""

import dataclasses

from benchmarks.common.family import (  # noqa: F401  (the names Step 1 families use)
    Family, FamilyResult, FamilyUnavailable, FunctionFamily, Prepared)
from benchmarks.common.sample_context import SampleContext
from benchmarks.memobench.dataset import GroundTruth


@dataclasses.dataclass(frozen=True, kw_only=True)
class ClipContext(SampleContext):
    """One clip: frames decoded and resized once, phases and ground truth."""

    h: int               # first frame of the Disappeared phase (generated space)
    r: int               # first frame of the Reappear phase
    gt: GroundTruth
    sample_step: int
