"""MemoBench's Step 1 formulas over the generic model metrics (run_eval.py): which frames
of which phase ObjIdentityConsistency (spec §4.3) and Geo3DConsistency (spec §4.4) score,
and how the phases combine into the eval-CSV raw values.

metrics.dinov2.identity computes DINOv2 patch identity of sampled frames against an
anchor; metrics.depth.depth_consistency the depth consistency of frame spans (both
unrounded). The phases are V (Visible) = (0, h) and R (Reappear) = (r, N-1), h and r the
generated keyframes. The rounding is geometry.py's and run_eval.py's: 4 dp per official
call, then 4 dp again where run_eval combines the phases.
"""

from typing import List, Sequence, Tuple

import numpy as np

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


def obj_identity_frames(r: int, num_frames: int) -> List[int]:
    """The distinct frames ObjIdentityConsistency's model sees: frame 0 and the R frames."""
    return identity.model_frames(r, num_frames - 1, num_frames, ANCHOR_INDEX)[1]


def obj_identity(frames, r: int, model, device, tokens=None) -> Tuple[float, float]:
    """(ObjIdentityMean, ObjIdentityMin) of a clip (spec §4.3): 9 frames of R = (r, N-1)
    against generated frame 0; `round(mean of mean_k, 4)`, `round(min of min_k, 4)`.

    `tokens`: the patch tokens of obj_identity_frames(r, N), one row per frame, when calls
    shared with other clips computed them; the model runs on the clip's frames otherwise."""
    if tokens is None:
        result = identity.identity_details(frames, r, len(frames) - 1, model, device,
                                           anchor_index=ANCHOR_INDEX)
    else:
        indices, distinct = identity.model_frames(r, len(frames) - 1, len(frames), ANCHOR_INDEX)
        result = identity.identity_from_frame_tokens(indices, distinct, tokens, ANCHOR_INDEX)
    return round(result.mean, 4), round(result.min, 4)


def geo_phases(h: int, r: int, num_frames: int) -> Tuple[Tuple[str, int, int], ...]:
    """The spans Geo3DConsistency scores, both always (spec §4.4): V = (0, h), R = (r, N-1)."""
    return (("V", 0, h), ("R", r, num_frames - 1))


def geo_span_value(pair_similarities: Sequence[float]) -> Tuple[float, float]:
    """One geometry_3d_consistency call: (round(mean, 4), round(min, 4)) of its pair
    cosines; (0.0, 0.0) when the span sampled no pair (n_range <= 1)."""
    if not pair_similarities:
        return 0.0, 0.0
    return (round(float(np.mean(pair_similarities)), 4),
            round(float(np.min(pair_similarities)), 4))


def combine_geo_spans(span_values: Sequence[Tuple[float, float]]) -> Tuple[float, float]:
    """run_eval.py's round(mean of the calls' means, 4) and round(min of their mins, 4).

    Raises:
        ValueError: With no span.
    """
    if not span_values:
        raise ValueError("expected at least one span")
    means = [mean for mean, _ in span_values]
    return round(sum(means) / len(means), 4), round(min(m for _, m in span_values), 4)


def geo_frames(h: int, r: int, num_frames: int) -> List[int]:
    """The distinct frames Geo3DConsistency's depth model sees (both spans' samples)."""
    return depth_consistency.span_calls(geo_phases(h, r, num_frames), num_frames)[1]


def geo_consistency(frames, h: int, r: int, model, processor, device,
                    depths=None) -> Tuple[float, float]:
    """(GeoConsistencyMean, GeoConsistencyMin) of a clip (spec §4.4): run_eval.py's
    round((mean_V + mean_R) / 2, 4) and round(min(min_V, min_R), 4), each call's values
    rounded to 4 dp first.

    `depths`: the depth maps of geo_frames(h, r, N), one per frame, when calls shared
    with other clips computed them; the model runs on the clip's frames otherwise."""
    spans = geo_phases(h, r, len(frames))
    if depths is None:
        result = depth_consistency.depth_consistency_details(frames, spans, model, processor,
                                                             device)
    else:
        calls, distinct = depth_consistency.span_calls(spans, len(frames))
        result = depth_consistency.consistency_from_depths(calls, dict(zip(distinct, depths)))
    return combine_geo_spans([geo_span_value(span.pair_similarities) for span in result.spans])
