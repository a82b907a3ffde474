"""MotionSmoothness (spec §4.1): RAFT warp error over the Visible and Reappear phases.

The eval-CSV column is TemporalScore (0-1); MotionSmoothness is its 0-100 composite.
"""

from benchmarks.memobench.step1 import family
from benchmarks.memobench.step1 import formulas


class MotionSmoothness(family.Family):
    """Warp-error smoothness with a pluggable flow backend (RAFT, or OpenCV DIS)."""

    name = "motion_smoothness"
    metric_ids = ("MotionSmoothness",)

    def __init__(self, flow_fn, backend, checkpoints=()):
        super().__init__(backend, checkpoints)
        self.flow_fn = flow_fn

    def compute(self, ctx: family.ClipContext) -> family.FamilyResult:
        result = formulas.temporal_score(ctx.frames, ctx.h, ctx.r, ctx.sample_step,
                                         self.flow_fn)
        return family.FamilyResult({"TemporalScore": result.temporal_score})
