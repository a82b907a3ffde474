"""spatial_relationship: are the prompt's two objects placed along the prompt's axis, from
GRiT's boxes (spec §5.2; Vchitect/VBench@45e79ec vbench/spatial_relationship.py).

Per frame, the boxes whose description equals object_a or object_b (ObjectDet mode: the
description is the class name), in detection order; every pair of them (two boxes of one
class too) gets a position score, and the frame's score is the largest, 0 without a pair.
The position score (`get_position_score`, :25-82): with dx, dy the distance between the
box centres and IoU the boxes' overlap,
  - a left/right relation (`rel in 'on the right of' or rel in 'on the left of'`: a
    substring test of the relation against those phrases) scores along x: when
    |dx| > |dy|, 1 if IoU < 0.1 else 0.1 / IoU; otherwise 0;
  - a top/bottom relation likewise along y; any other relation 0.
The direction (left vs right) and which box is object_a are never looked at: a prompt's
"A on the left of B" is satisfied by B on the left of A. Two zero-area boxes at one place
have no IoU (upstream divides 0 by 0: ZeroDivisionError, the whole run stops); here that
is a ValueError naming the boxes.

The video value is np.mean of the frame scores, `frame_results` the list (ints 0 stay
ints, as upstream's JSON has them); the aggregate pools every frame of every video.
"""

from typing import List, Sequence

import numpy as np

from benchmarks.vbench import dimension
from benchmarks.vbench.dimensions import grit_frames

IOU_THRESHOLD = 0.1
_HORIZONTAL = ("on the right of", "on the left of")
_VERTICAL = ("on the bottom of", "on the top of")


def position_score(relation: str, first: grit_frames.Box, second: grit_frames.Box):
    """One pair's score (see the module docstring); 0 stays the int 0 as upstream's."""
    dx = (second[0] + second[2]) / 2 - (first[0] + first[2]) / 2
    dy = (second[1] + second[3]) / 2 - (first[1] + first[3]) / 2
    overlap_x = max(0, min(first[2], second[2]) - max(first[0], second[0]))
    overlap_y = max(0, min(first[3], second[3]) - max(first[1], second[1]))
    intersection = overlap_x * overlap_y
    union = ((first[2] - first[0]) * (first[3] - first[1])
             + (second[2] - second[0]) * (second[3] - second[1]) - intersection)
    if union == 0:
        raise ValueError(f"boxes {first} and {second} have no area: no IoU (upstream "
                         "divides by zero)")
    iou = intersection / union
    if any(relation in phrase for phrase in _HORIZONTAL):
        along, across = abs(dx), abs(dy)
    elif any(relation in phrase for phrase in _VERTICAL):
        along, across = abs(dy), abs(dx)
    else:
        return 0
    if along <= across:
        return 0
    return 1 if iou < IOU_THRESHOLD else IOU_THRESHOLD / iou


def frame_score(frame: grit_frames.Detections, object_a: str, object_b: str, relation: str):
    """The largest position score over the frame's candidate pairs (0 without a pair)."""
    boxes = [box for text, box in zip(frame.descriptions, frame.boxes)
             if text in (object_a, object_b)]
    # Upstream re-scores every pair after each detection it reads; the pairs first appear
    # ordered by their later box, then their earlier one. max() keeps the first of equal
    # scores, which decides an int 1 against a float 1.0 (IoU exactly 0.1) in frame_results.
    pairs = [(boxes[i], boxes[j]) for j in range(len(boxes)) for i in range(j)]
    return max([0] + [position_score(relation, a, b) for a, b in pairs])


def value(frames: Sequence[grit_frames.Detections], auxiliary) -> dimension.Value:
    """The per-video value from the entry's auxiliary {object_a, object_b, relationship}."""
    if not frames:
        raise ValueError("no frame: np.mean of no frame score is NaN upstream")
    scores: List = [frame_score(f, auxiliary["object_a"], auxiliary["object_b"],
                                auxiliary["relationship"]) for f in frames]
    return dimension.Value(video_results=float(np.mean(scores)),
                           extras={"frame_results": scores})
