"""TCS object identities across keyframes (spec §4.3 step 4b): the official IoU matching.

At each keyframe the new SAM 2.1 image masks are matched against the objects tracked
into that same frame by the previous propagation segment (Grounded-SAM-2's
MaskDictionaryModel.update_masks, iou_threshold 0.75, read in AMAP-ML/VMBench@c278a73):

  - a new mask that is empty is dropped;
  - otherwise it takes the id of the *first* previous object (in their order) whose mask
    has IoU > 0.75 with it (strictly greater), else a new id (objects_count + 1);
  - quirk, kept: two new masks matching the same previous object get the same id, and
    the later one replaces the earlier (one object is lost, no id is spent);
  - with no detection at a keyframe, the previous objects are carried over as they are
    (empty masks included), which `carry_over` returns.
"""

from typing import Dict, Sequence, Tuple

import numpy as np

IOU_THRESHOLD = 0.75


def mask_iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two boolean masks (NaN when both are empty)."""
    a, b = np.asarray(a, bool), np.asarray(b, bool)
    if a.shape != b.shape:
        raise ValueError(f"masks of different shapes: {a.shape} and {b.shape}")
    inter = float(np.logical_and(a, b).sum())
    union = float(a.sum()) + float(b.sum()) - inter
    return inter / union if union else float("nan")


def match_masks(new_masks: Sequence[np.ndarray], previous: Dict[int, np.ndarray],
                objects_count: int, iou_threshold: float = IOU_THRESHOLD
                ) -> Tuple[Dict[int, np.ndarray], int]:
    """({id: mask} of this keyframe, the updated objects_count); see the module."""
    matched: Dict[int, np.ndarray] = {}
    for mask in new_masks:
        mask = np.asarray(mask, bool)
        if not mask.any():
            continue
        object_id = next((pid for pid, pmask in previous.items()
                          if mask_iou(mask, pmask) > iou_threshold), 0)
        if not object_id:
            objects_count += 1
            object_id = objects_count
        matched[object_id] = mask
    return matched, objects_count


def carry_over(previous: Dict[int, np.ndarray]) -> Dict[int, np.ndarray]:
    """The objects of a keyframe with no detection: the previous ones, unchanged."""
    return dict(previous)
