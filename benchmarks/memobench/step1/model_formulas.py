"""MemoBench's Step 1 formulas over the generic model metrics (run_eval.py): which frames
of which phase ObjIdentityConsistency (spec §4.3) and Geo3DConsistency (spec §4.4) score,
and how the phases combine into the eval-CSV raw values.

metrics.dinov2.identity computes DINOv2 patch identity of sampled frames against an
anchor; metrics.depth.depth_consistency the depth consistency of frame spans. The phases
are V (Visible) = (0, h) and R (Reappear) = (r, N-1), h and r the generated keyframes.
"""

from typing import List, Tuple

from metrics.depth import depth_consistency
from metrics.dinov2 import identity

ANCHOR_INDEX = 0  # ObjIdentityConsistency compares the R frames with generated frame 0.


def obj_identity_indices(r: int, num_frames: int) -> List[int]:
    """The R-phase frames ObjIdentityConsistency samples: 9 evenly spaced in [r, N-1]
    (spec §4.3).

    Raises:
        ValueError: If num_frames is not positive.
    """
    return identity.span_indices(r, num_frames - 1, num_frames)


def obj_identity_details(frames, r: int, model, device) -> identity.IdentityResult:
    """ObjIdentityConsistency of a clip (spec §4.3): 9 frames of R = (r, N-1) against
    generated frame 0; mean = ObjIdentityMean, min = ObjIdentityMin (4 dp)."""
    return identity.identity_details(frames, r, len(frames) - 1, model, device,
                                     anchor_index=ANCHOR_INDEX)


def obj_identity(frames, r: int, model, device) -> Tuple[float, float]:
    """(ObjIdentityMean, ObjIdentityMin) of a clip; see obj_identity_details."""
    result = obj_identity_details(frames, r, model, device)
    return result.mean, result.min


def geo_phases(h: int, r: int, num_frames: int) -> Tuple[Tuple[str, int, int], ...]:
    """The spans Geo3DConsistency scores, both always (spec §4.4): V = (0, h), R = (r, N-1)."""
    return (("V", 0, h), ("R", r, num_frames - 1))


def geo_consistency(frames, h: int, r: int, model, processor, device) -> Tuple[float, float]:
    """(GeoConsistencyMean, GeoConsistencyMin) of a clip (spec §4.4): run_eval.py's
    round((mean_V + mean_R) / 2, 4) and round(min(min_V, min_R), 4)."""
    result = depth_consistency.depth_consistency_details(
        frames, geo_phases(h, r, len(frames)), model, processor, device)
    return result.mean, result.min
