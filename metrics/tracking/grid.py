"""Query points on a regular grid, in a tracker's working resolution, optionally masked.

The layout is the one CoTracker's predictor uses (co-tracker's get_points_on_a_grid): a
size x size grid over the working frame (H x W, default
384 x 512) with a margin of W/64 on every side, row-major; with a mask, the mask is
resized to the working frame by nearest neighbour (source index floor(i * in / out), as
torch's F.interpolate "nearest") and only the points whose rounded position falls on it
are kept. Tracks made in the working frame map back to the video by (W_video - 1) /
(W - 1) and (H_video - 1) / (H - 1).
"""

from typing import Optional, Tuple

import numpy as np

WORK_SIZE = (384, 512)  # (H, W): CoTracker3's model resolution


def grid_points(size: int, work_size: Tuple[int, int] = WORK_SIZE) -> np.ndarray:
    """(size*size, 2) float32 (x, y) points, row-major."""
    if size < 1:
        raise ValueError(f"expected a grid size >= 1, found {size}")
    height, width = work_size
    if size == 1:
        return np.array([[width / 2, height / 2]], dtype=np.float32)
    margin = width / 64
    ys = np.linspace(margin, height - margin, size, dtype=np.float32)
    xs = np.linspace(margin, width - margin, size, dtype=np.float32)
    gy, gx = np.meshgrid(ys, xs, indexing="ij")
    return np.stack([gx.ravel(), gy.ravel()], axis=1).astype(np.float32)


def nearest_resize(mask: np.ndarray, work_size: Tuple[int, int] = WORK_SIZE) -> np.ndarray:
    """An (H, W) mask resized to `work_size` by torch-style nearest neighbour."""
    mask = np.asarray(mask)
    if mask.ndim != 2:
        raise ValueError(f"expected an (H, W) mask, found shape {mask.shape}")
    out_h, out_w = work_size
    rows = np.minimum((np.arange(out_h) * (mask.shape[0] / out_h)).astype(np.int64),
                      mask.shape[0] - 1)
    cols = np.minimum((np.arange(out_w) * (mask.shape[1] / out_w)).astype(np.int64),
                      mask.shape[1] - 1)
    return mask[rows][:, cols]


def masked_grid(size: int, mask: Optional[np.ndarray],
                work_size: Tuple[int, int] = WORK_SIZE) -> np.ndarray:
    """grid_points kept where the (video-size) `mask` is nonzero; all without a mask."""
    points = grid_points(size, work_size)
    if mask is None:
        return points
    small = nearest_resize(mask, work_size) != 0
    # np.round is round-half-even, as torch.round.
    keep = small[np.round(points[:, 1]).astype(np.int64), np.round(points[:, 0]).astype(np.int64)]
    return points[keep]


def to_video_coords(tracks: np.ndarray, video_size: Tuple[int, int],
                    work_size: Tuple[int, int] = WORK_SIZE) -> np.ndarray:
    """(…, 2) working-frame (x, y) to video pixels; video_size is (H, W)."""
    scale = np.array([(video_size[1] - 1) / (work_size[1] - 1),
                      (video_size[0] - 1) / (work_size[0] - 1)], dtype=np.float32)
    return np.asarray(tracks, dtype=np.float32) * scale
