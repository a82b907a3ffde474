"""Weight-free point tracks: OpenCV pyramidal Lucas-Kanade on a CoTracker-style grid.

NOT CoTracker3 and not an official backend of any benchmark: a named stand-in that
needs no weights, so track-based metrics can run (and be tested) anywhere. The frames
are resized to the grid's working resolution (384 x 512, bilinear, as CoTracker's
predictor does), the grid (metrics/tracking/grid.py, optionally masked) is placed on the
query frame, and points are followed frame to frame, forward to the end and backward to
frame 0, with cv2.calcOpticalFlowPyrLK (21x21 window, 3 pyramid levels). A point LK
loses stays where it was last seen and is marked invisible from then on. Tracks are
returned in video pixels.
"""

from typing import Optional, Tuple

import cv2
import numpy as np

from metrics.tracking import grid as grid_lib

BACKEND = "opencv-lk-grid"
WIN_SIZE = (21, 21)
MAX_LEVEL = 3
CRITERIA = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 30, 0.01)


def _gray_frames(frames: np.ndarray, work_size) -> np.ndarray:
    height, width = work_size
    out = np.empty((len(frames), height, width), dtype=np.uint8)
    for i, frame in enumerate(frames):
        if frame.shape[:2] != (height, width):
            frame = cv2.resize(frame, (width, height), interpolation=cv2.INTER_LINEAR)
        out[i] = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    return out


def _follow(gray, order, points, tracks, visible):
    """Tracks `points` through the frames in `order` (the first is where they are)."""
    current = points.reshape(-1, 1, 2).astype(np.float32)
    alive = np.ones(len(points), dtype=bool)
    for prev, nxt in zip(order[:-1], order[1:]):
        moved, status, _ = cv2.calcOpticalFlowPyrLK(
            gray[prev], gray[nxt], current, None, winSize=WIN_SIZE, maxLevel=MAX_LEVEL,
            criteria=CRITERIA)
        ok = alive & (status.ravel() == 1)
        current[ok] = moved[ok]
        alive = ok
        tracks[nxt] = current.reshape(-1, 2)
        visible[nxt] = alive


def track_grid(frames: np.ndarray, grid_size: int = 30, mask: Optional[np.ndarray] = None,
               query_frame: int = 0,
               work_size: Tuple[int, int] = grid_lib.WORK_SIZE) -> Tuple[np.ndarray, np.ndarray]:
    """(tracks (T, N, 2) float32 video pixels, visibility (T, N) bool) of the grid.

    Args:
      frames: (T, H, W, 3) BGR uint8 (or (T, H, W) gray).
      grid_size: points per side before masking.
      mask: (H, W) video-size mask; only grid points on it are tracked (None: all).
      query_frame: the frame the grid is placed on.
    """
    frames = np.asarray(frames)
    if frames.ndim not in (3, 4) or len(frames) < 1:
        raise ValueError(f"expected (T, H, W[, 3]) frames, found shape {frames.shape}")
    count = len(frames)
    if not 0 <= query_frame < count:
        raise ValueError(f"query frame {query_frame} is outside the clip's {count} frames")
    points = grid_lib.masked_grid(grid_size, mask, work_size)
    tracks = np.zeros((count, len(points), 2), dtype=np.float32)
    visible = np.zeros((count, len(points)), dtype=bool)
    tracks[query_frame], visible[query_frame] = points, True
    if len(points):
        gray = _gray_frames(frames, work_size)
        _follow(gray, list(range(query_frame, count)), points, tracks, visible)
        _follow(gray, list(range(query_frame, -1, -1)), points, tracks, visible)
    return grid_lib.to_video_coords(tracks, frames.shape[1:3], work_size), visible
