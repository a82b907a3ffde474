"""Overlap and error measures between two mask (or frame) sequences.

Vectorised numpy that gives the same bits as the straightforward per-frame
loops it replaces: integer counts are exact whatever the order, and the
floating-point sums keep the loops' operand order and dtype (documented per
function). Every convention a benchmark may choose (the value of an empty
union, which pixels a weighted sum runs over, the counting dtype) is an
explicit argument.

A "mask sequence" is an array (or list) of shape (T, ...) whose elements are
read as booleans (nonzero = active); all frames of one sequence have one
shape, and two compared sequences have the same frame shape.
"""

import numpy as np


def _as_bool_stack(masks):
    return np.asarray(masks) != 0


def _iou(intersection, union, empty_value):
    """intersection / union (float64, exact division), empty_value where union == 0."""
    intersection = np.asarray(intersection, dtype=np.int64)
    union = np.asarray(union, dtype=np.int64)
    iou = intersection / np.maximum(union, 1)
    return np.where(union == 0, float(empty_value), iou)


def per_frame_iou(masks_a, masks_b, *, empty_value):
    """IoU |a_t AND b_t| / |a_t OR b_t| for t over the shorter sequence.

    Counts run over every element of a frame (all channels included). Frames
    beyond the shorter length are ignored, like zip().

    Args:
        masks_a: Mask sequence (T_a, ...).
        masks_b: Mask sequence (T_b, ...) with the same frame shape.
        empty_value: The IoU of a frame where neither mask is active.

    Returns:
        A list of min(T_a, T_b) Python floats.
    """
    n = min(len(masks_a), len(masks_b))
    if n == 0:
        return []
    a = _as_bool_stack(masks_a[:n])
    b = _as_bool_stack(masks_b[:n])
    if a.shape != b.shape:
        raise ValueError(f"frame shapes differ: {a.shape[1:]} vs {b.shape[1:]}")
    axes = tuple(range(1, a.ndim))
    intersection = np.logical_and(a, b).sum(axis=axes)
    union = np.logical_or(a, b).sum(axis=axes)
    return _iou(intersection, union, empty_value).tolist()


def collapsed(masks):
    """The time-collapsed mask: True where any frame is active (max over time > 0)."""
    if len(masks) == 0:
        raise ValueError("cannot collapse an empty mask sequence")
    return _as_bool_stack(masks).any(axis=0)


def collapsed_iou(masks_a, masks_b, *, empty_value):
    """IoU of the two time-collapsed masks, a Python float.

    Raises:
        ValueError: If a sequence is empty or the frame shapes differ.
    """
    a, b = collapsed(masks_a), collapsed(masks_b)
    if a.shape != b.shape:
        raise ValueError(f"frame shapes differ: {a.shape} vs {b.shape}")
    union = np.count_nonzero(a | b)
    intersection = np.count_nonzero(a & b)
    return float(_iou(intersection, union, empty_value))


def active_fraction(masks, *, count_dtype):
    """Per-element fraction of active frames: (sum over t of a_t) / T, float64.

    Args:
        masks: Non-empty mask sequence (T, ...).
        count_dtype: Integer dtype of the per-element count (it wraps around
            like numpy's sum with that dtype, e.g. np.uint16 past 65535).

    Returns:
        A float64 array of the frame shape.
    """
    if len(masks) == 0:
        raise ValueError("cannot take the active fraction of an empty mask sequence")
    counts = np.sum(_as_bool_stack(masks), axis=0, dtype=count_dtype)
    return counts / len(masks)


def weighted_iou(weights_a, weights_b, *, empty_value, active_only):
    """Soft IoU sum(min(a, b)) / sum(max(a, b)) of two nonnegative weight maps.

    Args:
        weights_a: Float array (e.g. an active_fraction map).
        weights_b: Float array of the same shape.
        empty_value: Returned where max(a, b) is zero everywhere.
        active_only: True sums over the elements with max(a, b) > 0 only
            (a 1-D selection in C order); False sums over all elements. The
            value is the same up to float64 rounding: numpy's pairwise
            summation groups the terms differently, so the last bits can
            differ and the caller picks the order its reference uses.

    Returns:
        A Python float.
    """
    weights_a = np.asarray(weights_a)
    weights_b = np.asarray(weights_b)
    if weights_a.shape != weights_b.shape:
        raise ValueError(f"shapes differ: {weights_a.shape} vs {weights_b.shape}")
    low = np.minimum(weights_a, weights_b)
    high = np.maximum(weights_a, weights_b)
    if active_only:
        active = high > 0
        if not active.any():
            return float(empty_value)
        return float(np.sum(low[active]) / np.sum(high[active]))
    total = np.sum(high)
    if total == 0:
        return float(empty_value)
    return float(np.sum(low) / total)


def per_frame_mse(frames_a, frames_b):
    """Mean squared difference per frame, computed in float32.

    Each frame is cast to float32 first (a float64 frame is rounded to
    float32, as `frame.astype(np.float32)` does), squared differences are
    float32 and their mean is numpy's float32 mean over the frame's elements
    (pairwise summation in C order, the same bits as np.mean of each frame).

    Args:
        frames_a: Sequence (T, ...) of numeric frames.
        frames_b: Sequence of the same length and frame shape.

    Returns:
        A list of T Python floats (each exactly a float32 value).

    Raises:
        ValueError: If the frame counts or frame shapes differ.
    """
    if len(frames_a) != len(frames_b):
        raise ValueError(
            f"frame counts differ: {len(frames_a)} vs {len(frames_b)}"
        )
    if len(frames_a) == 0:
        return []
    a = np.asarray(frames_a).astype(np.float32, copy=False)
    b = np.asarray(frames_b).astype(np.float32, copy=False)
    if a.shape != b.shape:
        raise ValueError(f"frame shapes differ: {a.shape[1:]} vs {b.shape[1:]}")
    diff = a - b
    np.square(diff, out=diff)
    return diff.mean(axis=tuple(range(1, diff.ndim)), dtype=np.float32).tolist()
