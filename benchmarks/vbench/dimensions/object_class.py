"""object_class and multiple_objects: is the prompt's object (or both objects) among the
names GRiT finds in each frame (spec §5.2; Vchitect/VBench@45e79ec vbench/object_class.py,
vbench/multiple_objects.py).

Per frame, the set of the frame's object names (grit_frames.Detections.name_set); a frame
succeeds when the auxiliary `object` is in it, by exact string equality (object_class),
or when both halves of "A and B" are (multiple_objects: the key split on ' and ', each
half stripped). The video value is successes / frames, with both counts kept as the
official dict keeps them (success_frame_count, frame_count): the single-GPU aggregate is
Σ successes / Σ frames (results/aggregate.py).

The model side (GRiT in ObjectDet mode on the 16 middle frames, frames over 768 px
resized first) is VBench part 2's; these functions take its output.
"""

from typing import Sequence, Tuple

from benchmarks.vbench import dimension
from benchmarks.vbench.dimensions import grit_frames


def _value(successes: int, frames: int) -> dimension.Value:
    if frames == 0:
        raise ValueError("no frame: upstream divides by zero (len(cur_video_pred) == 0)")
    return dimension.Value(video_results=successes / frames,
                           extras={"success_frame_count": successes, "frame_count": frames})


def object_value(frames: Sequence[grit_frames.Detections], obj: str) -> dimension.Value:
    """object_class's per-video value: frames whose names include `obj` / frames."""
    return _value(sum(1 for f in frames if obj in f.name_set()), len(frames))


def object_pair(key: str) -> Tuple[str, str]:
    """multiple_objects' two names from its auxiliary key "A and B" (split on ' and ',
    each stripped). Upstream unpacks the split into two names, so a key with no or with
    two ' and ' fails there (a ValueError); here too, naming the key."""
    parts = key.split(" and ")
    if len(parts) != 2:
        raise ValueError(f"multiple_objects key {key!r}: expected exactly one ' and ' "
                         f"(upstream unpacks two names), found {len(parts) - 1}")
    return parts[0].strip(), parts[1].strip()


def objects_value(frames: Sequence[grit_frames.Detections], key: str) -> dimension.Value:
    """multiple_objects' per-video value: frames whose names include both objects / frames."""
    first, second = object_pair(key)
    hits = 0
    for frame in frames:
        names = frame.name_set()
        hits += first in names and second in names
    return _value(hits, len(frames))
