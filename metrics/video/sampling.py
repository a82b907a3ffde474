"""Frame-index helpers: strided and evenly spaced indices, uniform resampling.

All results are Python ints. Rounding uses Python's `round`, which rounds
halves to the even neighbour (banker's rounding), as the reference code does.
"""

import dataclasses
import operator
from typing import List


@dataclasses.dataclass(frozen=True)
class FrameScores:
    """A per-frame score at each sampled frame index (same order, same length)."""

    indices: List[int]
    scores: List[float]


def _as_int(value, name):
    """Returns value as a Python int, raising ValueError for non-integers."""
    if isinstance(value, bool):
        raise ValueError(f"{name} must be an int, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise ValueError(f"{name} must be an int, got {value!r}") from None


def iter_indices(start, end, step, num_frames):
    """Lists frame indices from start to end inclusive, clipped to the video.

    Args:
        start: First index (clipped to 0).
        end: Last index, inclusive (clipped to num_frames - 1).
        step: Positive stride.
        num_frames: Number of frames in the video.

    Returns:
        `list(range(max(0, start), min(num_frames - 1, end) + 1, step))`.

    Raises:
        ValueError: If step is not a positive int.
    """
    step = _as_int(step, "step")
    if step <= 0:
        raise ValueError(f"step must be positive, got {step}")
    return list(range(max(0, start), min(num_frames - 1, end) + 1, step))


def resample_gt_indices(gt_start, gt_end, n):
    """Picks n ground-truth indices spread evenly from gt_start to gt_end.

    Args:
        gt_start: First ground-truth index.
        gt_end: Last ground-truth index (inclusive).
        n: Number of indices wanted.

    Returns:
        [] if n <= 0; [gt_start] * n if n == 1 or gt_start == gt_end; else
        `round(gt_start + i * (gt_end - gt_start) / (n - 1))` for each i.
    """
    if n <= 0:
        return []
    if n == 1 or gt_start == gt_end:
        return [gt_start] * n
    return [
        int(round(gt_start + i * (gt_end - gt_start) / (n - 1)))
        for i in range(n)
    ]


def evenly_spaced(start, end, count):
    """Picks count indices from start to end inclusive, truncating toward start.

    Args:
        start: First index.
        end: Last index (inclusive).
        count: Number of indices wanted (positive).

    Returns:
        [start] if the range holds at most one index or count == 1, else
        `start + int(i * (n_range - 1) / (count - 1))` for each i.

    Raises:
        ValueError: If count is not positive.
    """
    count = _as_int(count, "count")
    if count <= 0:
        raise ValueError(f"count must be positive, got {count}")
    n_range = end - start + 1
    if n_range <= 1 or count == 1:
        return [start]
    return [start + int(i * (n_range - 1) / (count - 1)) for i in range(count)]


def resample_to_length(n_source, n_target):
    """Maps n_target evenly spaced positions onto n_source indices.

    Args:
        n_source: Length of the source sequence (positive).
        n_target: Number of indices wanted (positive).

    Returns:
        `round(i * (n_source - 1) / (n_target - 1))` for each i, or [0]
        when n_target == 1.

    Raises:
        ValueError: If n_source or n_target is not positive.
    """
    n_source = _as_int(n_source, "n_source")
    n_target = _as_int(n_target, "n_target")
    if n_source <= 0 or n_target <= 0:
        raise ValueError(
            f"n_source and n_target must be positive, got {n_source}, "
            f"{n_target}"
        )
    if n_target == 1:
        return [0]
    return [
        int(round(i * (n_source - 1) / (n_target - 1)))
        for i in range(n_target)
    ]
