"""Tests on point tracks around one frame: did an object leave by an edge, shrink to a
few pixels, or never fully disappear? Generic rules with every threshold a parameter.

Tracks are (T, N, 2) x/y pixels and visibility (T, N) bool. `side` says which frames
count: "after" (t > start: the object vanishing) or "before" (t < start: emerging).
The rules transcribe those of a released motion benchmark's temporal-coherence code
(the benchmark package that uses them names it), comparisons as strict or not as there:

  invisible_fraction r[t] = mean over points of not-visible;
  left_by_edge:   some counted t with r[t] >= visibility_ratio and a fraction >=
                  point_ratio of points outside the frame (x < 0, x > W, y < 0, y > H);
  became_small:   some counted t with r[t] >= visibility_ratio (default -1: every
                  frame) where a fraction >= point_ratio of points is strictly inside
                  (0 < x < W, 0 < y < H), at least 2 of them, and their extent
                  max((q90 - q10)_x / W, (q90 - q10)_y / H) < size_threshold
                  (quantiles interpolated linearly, as torch.quantile);
  never_invisible: no counted t with r[t] >= visibility_ratio.
With no points a fraction is NaN and every comparison with it is false.
"""

import numpy as np

AFTER, BEFORE = "after", "before"


def _check(tracks, visibility):
    tracks = np.asarray(tracks, dtype=np.float32)
    visibility = np.asarray(visibility, dtype=bool)
    if tracks.ndim != 3 or tracks.shape[2] != 2:
        raise ValueError(f"expected tracks of shape (T, N, 2), found {tracks.shape}")
    if visibility.shape != tracks.shape[:2]:
        raise ValueError(f"expected visibility of shape {tracks.shape[:2]} (T, N), found "
                         f"{visibility.shape}")
    return tracks, visibility


def _counted(count: int, start: int, side: str) -> np.ndarray:
    frames = np.arange(count)
    if side == AFTER:
        return frames > start
    if side == BEFORE:
        return frames < start
    raise ValueError(f"side must be {AFTER!r} or {BEFORE!r}, found {side!r}")


def _mean(mask: np.ndarray, axis: int) -> np.ndarray:
    if mask.shape[axis] == 0:
        return np.full(mask.shape[1 - axis], np.nan)
    return mask.mean(axis=axis)


def invisible_fraction(visibility: np.ndarray) -> np.ndarray:
    """r[t]: the fraction of points not visible in frame t."""
    return _mean(~np.asarray(visibility, dtype=bool), axis=1)


def left_by_edge(tracks, visibility, start: int, width: float, height: float, side: str,
                 visibility_ratio: float, point_ratio: float) -> bool:
    tracks, visibility = _check(tracks, visibility)
    frames = _counted(len(tracks), start, side) & (
        invisible_fraction(visibility) >= visibility_ratio)
    x, y = tracks[frames, :, 0], tracks[frames, :, 1]
    outside = _mean((x < 0) | (x > width) | (y < 0) | (y > height), axis=1)
    return bool(np.any(outside >= point_ratio))


def became_small(tracks, visibility, start: int, width: float, height: float, side: str,
                 point_ratio: float, size_threshold: float,
                 visibility_ratio: float = -1.0) -> bool:
    tracks, visibility = _check(tracks, visibility)
    frames = _counted(len(tracks), start, side) & (
        invisible_fraction(visibility) >= visibility_ratio)
    for frame in tracks[frames]:
        inside = ((frame[:, 0] > 0) & (frame[:, 0] < width)
                  & (frame[:, 1] > 0) & (frame[:, 1] < height))
        if not len(inside) or inside.mean() < point_ratio or inside.sum() <= 1:
            continue
        points = frame[inside]
        low = np.quantile(points, 0.1, axis=0)
        high = np.quantile(points, 0.9, axis=0)
        size = max((high[0] - low[0]) / width, (high[1] - low[1]) / height)
        if size < size_threshold:
            return True
    return False


def never_invisible(visibility, start: int, side: str, visibility_ratio: float) -> bool:
    visibility = np.asarray(visibility, dtype=bool)
    if visibility.ndim != 2:
        raise ValueError(f"expected visibility of shape (T, N), found {visibility.shape}")
    frames = _counted(len(visibility), start, side)
    return not bool(np.any(invisible_fraction(visibility)[frames] >= visibility_ratio))
