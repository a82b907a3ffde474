"""MemoBench's GTRevisitSim: CLIP ViT-B/32 similarity of a clip's R span to the GT (spec §4.8).

Official (`run_eval.py` §9 with `clip_metrics.clip_frame_similarity`), with
N generated frames, R keyframe r (generated space), r_gt (GT space) and
N_last = gt_total - 1, for k = 0, 1, 2:

    gt_idx  = int(r_gt + k * (N_last - r_gt) / 2)
    gen_idx = int(r    + k * (N - 1 - r)     / 2)

The GT frame is read at native resolution (no resize before CLIP: the CLIP
transform resizes it), the generated frame is the 640 max-side one. The pairs' CLIP
cosines come from metrics.clip.frame_similarity; each is clipped to [0, 1] and the
score is `round(float(np.mean(sims)), 4)`. The official code embeds one image per
call; here the six images go in one call (equal up to float rounding).
"""

import dataclasses
from typing import List, Sequence, Tuple

import numpy as np

from metrics.clip import frame_similarity

NUM_PAIRS = 3


@dataclasses.dataclass(frozen=True)
class RevisitResult:
    """GTRevisitSim of one clip.

    Attributes:
        score: Mean of the clipped similarities, rounded to 4 dp.
        pairs: (gt_idx, gen_idx) for k = 0, 1, 2.
        similarities: The clipped cosine of each pair.
    """

    score: float
    pairs: List[Tuple[int, int]]
    similarities: List[float]


def revisit_pairs(r: int, r_gt: int, num_frames: int, gt_total: int) -> List[Tuple[int, int]]:
    """The official (gt_idx, gen_idx) pairs, truncated with int() as run_eval does.

    Raises:
        ValueError: Unless 0 <= r <= num_frames - 1 and 0 <= r_gt <= gt_total - 1.
    """
    if not 0 <= r <= num_frames - 1:
        raise ValueError(f"need 0 <= r <= N-1, got r={r}, N={num_frames}")
    if not 0 <= r_gt <= gt_total - 1:
        raise ValueError(f"need 0 <= r_gt <= gt_total-1, got r_gt={r_gt}, gt_total={gt_total}")
    n_gt_last = gt_total - 1
    return [(int(r_gt + k * (n_gt_last - r_gt) / 2), int(r + k * (num_frames - 1 - r) / 2))
            for k in range(NUM_PAIRS)]


def revisit_details(gen_frames: Sequence[np.ndarray],
                    gt_frames_at: frame_similarity.ReferenceFramesAt, r: int, r_gt: int,
                    gt_total: int, model, device=None) -> RevisitResult:
    """GTRevisitSim with its pairs and per-pair similarities.

    Args:
        gen_frames: The generated clip, (N, H, W, 3) uint8 BGR (640 max-side).
        gt_frames_at: Called once with the 3 GT indices (possibly repeated);
            returns those GT frames (BGR uint8, native size) in that order.
        r: R keyframe in the generated clip.
        r_gt: R keyframe in the GT clip.
        gt_total: Number of GT frames.
        model: The ViT-B/32 tower (metrics.clip.vision.load_clip_vision).
        device: Where the cosines are computed; None: the CPU, as the official
            numpy dot product.

    Raises:
        ValueError: Keyframes out of range, or gt_frames_at returned the wrong count.
    """
    pairs = revisit_pairs(r, r_gt, len(gen_frames), gt_total)
    cosines = frame_similarity.pair_similarities(gen_frames, gt_frames_at, pairs, model, device)
    sims = [float(np.clip(c, 0.0, 1.0)) for c in cosines]
    return RevisitResult(round(float(np.mean(sims)), 4), pairs, sims)


def gt_revisit_similarity(gen_frames: Sequence[np.ndarray],
                          gt_frames_at: frame_similarity.ReferenceFramesAt, r: int, r_gt: int,
                          gt_total: int, model, device=None) -> float:
    """The raw GTRevisitSim in [0, 1] (4 dp); see revisit_details."""
    return revisit_details(gen_frames, gt_frames_at, r, r_gt, gt_total, model, device).score
