"""Object revisit score arithmetic over SAM 3 masks (compute_ors.py, spec §6).

Per frame of the R phase (frames r .. N-1 at native resolution), SAM-3 returns masks
and scores for the clip's text prompt at confidence threshold 0.0. A mask's coverage
is its pixel count over W*H; the candidate pool is the masks with
0.0005 <= coverage <= 0.50, or, when none, 0.0005 <= coverage <= 0.70. The frame
counts as detected when the pool is non-empty, with confidence = the pool's best
score (`run_sam3_on_frame`).

Per clip (`compute_ors_for_clip`): detection_rate = detected / R frames, where a frame
that fails to read counts in the denominator; mean_confidence = mean of the detected
frames' confidences (0 when none); ors = detection_rate * mean_confidence; each of
the three rounded to 4 decimals (Python `round`). An empty R range scores 0.
"""

import dataclasses
from typing import Callable, List, Optional, Sequence

import numpy as np

MIN_COVERAGE = 0.0005
MAX_COVERAGE = 0.50
FALLBACK_MAX_COVERAGE = 0.70
DECIMALS = 4


@dataclasses.dataclass(frozen=True)
class FrameVerdict:
    """One R-phase frame: None for a frame that could not be read."""

    detected: bool
    confidence: float


@dataclasses.dataclass(frozen=True)
class ClipRevisit:
    """compute_ors_for_clip's dict, in its order and rounding."""

    ors: float
    detection_rate: float
    mean_confidence: float
    n_r_frames: int
    n_detected: int
    frames: tuple = ()   # the FrameVerdict (or None) of each R-phase frame


def frame_verdict(mask_areas: Sequence[int], scores: Sequence[float], width: int,
                  height: int) -> FrameVerdict:
    """Coverage filter and verdict of one frame.

    Args:
        mask_areas: Pixel count of each kept mask (`masks[j][0].sum()`).
        scores: The masks' scores, in the same order.
        width, height: The frame's size (coverage denominator W*H).
    """
    if len(mask_areas) != len(scores):
        raise ValueError(f"{len(mask_areas)} masks but {len(scores)} scores")
    if len(mask_areas) == 0:
        return FrameVerdict(False, 0.0)
    image_area = int(width) * int(height)
    coverage = [int(area) / image_area for area in mask_areas]
    pool = [float(s) for c, s in zip(coverage, scores) if MIN_COVERAGE <= c <= MAX_COVERAGE]
    if not pool:
        pool = [float(s) for c, s in zip(coverage, scores)
                if MIN_COVERAGE <= c <= FALLBACK_MAX_COVERAGE]
    if not pool:
        return FrameVerdict(False, 0.0)
    return FrameVerdict(True, max(pool))


def clip_revisit(verdicts: Sequence[Optional[FrameVerdict]]) -> ClipRevisit:
    """Aggregates the R-phase frames' verdicts (None: unreadable, still counted)."""
    n_r = len(verdicts)
    if n_r == 0:
        return ClipRevisit(0.0, 0.0, 0.0, 0, 0, ())
    confidences = [v.confidence for v in verdicts if v is not None and v.detected]
    detection_rate = len(confidences) / n_r
    mean_confidence = float(np.mean(confidences)) if confidences else 0.0
    return ClipRevisit(
        ors=round(detection_rate * mean_confidence, DECIMALS),
        detection_rate=round(detection_rate, DECIMALS),
        mean_confidence=round(mean_confidence, DECIMALS),
        n_r_frames=n_r, n_detected=len(confidences), frames=tuple(verdicts))


def r_phase_verdicts(read_frame: Callable[[int], Optional[np.ndarray]], num_frames: int,
                     r_start: int,
                     judge: Callable[[np.ndarray], FrameVerdict]) -> List[Optional[FrameVerdict]]:
    """Judges frames r_start .. num_frames-1 in order; an unreadable frame gives None.

    Args:
        read_frame: Index -> BGR uint8 frame, or None when it cannot be read.
        num_frames: Frames in the clip (N).
        r_start: First frame of the R phase.
        judge: BGR frame -> FrameVerdict (SAM-3 detection plus frame_verdict).
    """
    verdicts = []
    for index in range(r_start, num_frames):
        frame = read_frame(index)
        verdicts.append(None if frame is None else judge(frame))
    return verdicts
