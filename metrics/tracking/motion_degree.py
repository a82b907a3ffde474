"""Motion degree of point tracks, and subject motion net of background motion.

motion_degree (the "motion amplitude" of a set of tracks P[t, n], (x, y) pixels):

    amp = mean_n( sum_{t=1..T-1} ||P[t, n] - P[t-1, n]||_2 / sqrt(W^2 + H^2) )

the mean over points of each point's cumulative path length, as a fraction of the frame
diagonal. It is a sum over frames (it grows with clip length), visibility is not used,
and it is computed in float32 as the tracks come from the tracker. No points: NaN (the
mean of an empty set).

net_subject_motion: subject motion minus background (camera) motion, the rule of the
released motion-amplitude code this follows (named by the benchmark package that uses
it): the background is subtracted only when
the subject moves more than it; a NaN subject value (no track in the subject mask), or no
subject at all (nothing detected), gives the background value.

    >>> import numpy as np
    >>> tracks = np.zeros((3, 2, 2), np.float32); tracks[:, :, 0] = [[0, 0], [3, 0], [6, 0]]
    >>> round(motion_degree(tracks, width=4, height=3), 6)   # (6/5 + 0) / 2
    0.6
"""

import math
from typing import Optional

import numpy as np


def _check_tracks(tracks: np.ndarray) -> np.ndarray:
    tracks = np.asarray(tracks)
    if tracks.ndim != 3 or tracks.shape[2] != 2:
        raise ValueError(f"expected tracks of shape (T, N, 2) (frames, points, x/y), "
                         f"found {tracks.shape}")
    if tracks.shape[0] < 1:
        raise ValueError("expected at least one frame of tracks, found none")
    return tracks.astype(np.float32, copy=False)


def motion_degree(tracks: np.ndarray, width: int, height: int) -> float:
    """The motion degree of (T, N, 2) tracks in a width x height frame (see module)."""
    tracks = _check_tracks(tracks)
    if width <= 0 or height <= 0:
        raise ValueError(f"expected a positive frame size, found {width}x{height}")
    if tracks.shape[1] == 0:
        return math.nan
    diagonal = np.sqrt(np.float32(width ** 2 + height ** 2))
    steps = np.linalg.norm(tracks[1:] - tracks[:-1], axis=2) / diagonal  # (T-1, N)
    return float(np.mean(np.sum(steps, axis=0, dtype=np.float32), dtype=np.float32))


def net_subject_motion(subject: Optional[float], background: float) -> float:
    """Subject motion net of the background's (see module): `subject` None when
    nothing was detected."""
    if subject is None:
        return background
    if subject > background:
        subject = subject - background
    return background if math.isnan(subject) else subject


def subject_and_background_masks(masks: np.ndarray, height: int, width: int):
    """(subject, background) boolean (H, W) masks from N detection masks (N, H, W).

    subject = the union of the masks; background = pixels that *any* mask leaves
    uncovered (so two disjoint detections make the whole frame background), the official
    rule. No masks: no subject (None) and an all-true background.
    """
    masks = np.asarray(masks, dtype=bool)
    if masks.size == 0 or masks.shape[0] == 0:
        return None, np.ones((height, width), dtype=bool)
    if masks.ndim != 3 or masks.shape[1:] != (height, width):
        raise ValueError(f"expected masks of shape (N, {height}, {width}), found {masks.shape}")
    return masks.any(axis=0), (~masks).any(axis=0)
