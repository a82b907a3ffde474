"""MemoBench's Step 1 MotionSmoothness formula over the generic flow warp error: which
phases run and the rounding of the eval-CSV raw value (run_eval.py, spec §4.1).

The phases (spec §3): V (Visible) = (0, h), R (Reappear) = (r, N-1), with h and r the
generated clip's keyframes. metrics.flow.warp_error computes the generic quantity (the
warp smoothness of frame spans); model_formulas.py does the same for the model families.
"""

import dataclasses
from typing import Tuple

from metrics.flow import warp_error

# run_eval.py scores V only if h >= 2 and R only if N-1-r >= 2 (spec §4.1).
MIN_MOTION_PHASE_SPAN = 2


@dataclasses.dataclass(frozen=True)
class TemporalScoreResult:
    """MotionSmoothness of one clip.

    Attributes:
        temporal_score: The eval-CSV `TemporalScore` (0-1, rounded to 4 dp).
        phases: The warp-smoothness calls that ran, V first.
    """

    temporal_score: float
    phases: Tuple[warp_error.SpanSmoothness, ...]


def motion_phases(h: int, r: int, num_frames: int) -> Tuple[Tuple[str, int, int], ...]:
    """The (name, start, end) spans MotionSmoothness scores: V = (0, h) if h >= 2,
    R = (r, N-1) if N-1-r >= 2."""
    phases = []
    if h >= MIN_MOTION_PHASE_SPAN:
        phases.append(("V", 0, h))
    if num_frames - 1 - r >= MIN_MOTION_PHASE_SPAN:
        phases.append(("R", r, num_frames - 1))
    return tuple(phases)


def temporal_score(frames, h: int, r: int, sample_step: int, flow_fn,
                   warp_batch: int = warp_error.DEFAULT_WARP_BATCH) -> TemporalScoreResult:
    """MemoBench's TemporalScore of one clip (spec §4.1).

    Args:
        frames: (N, H, W, 3) BGR uint8 frames, already max-side resized.
        h: H keyframe index in this clip (end of V).
        r: R keyframe index in this clip (start of R).
        sample_step: Positive stride (run_eval.py passes 4).
        flow_fn: Flow function (see metrics.flow.warp_error).
        warp_batch: Pairs warped per grid_sample call.

    Returns:
        A TemporalScoreResult: round(mean of the phases' scores, 4), 0.0 if neither ran.

    Raises:
        ValueError: If frames is empty or sample_step is not a positive int.
    """
    result = warp_error.flow_warp_smoothness(frames, motion_phases(h, r, len(frames)),
                                             sample_step, flow_fn, warp_batch)
    return TemporalScoreResult(round(result.mean, 4), result.spans)

