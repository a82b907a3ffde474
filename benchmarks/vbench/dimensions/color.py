"""color: does GRiT's dense caption of the prompt's object name the prompt's colour (spec
§5.2; Vchitect/VBench@45e79ec vbench/color.py).

GRiT runs in DenseCap mode. Upstream pairs each detection's caption with the frame's
FIRST det_obj name (`cap_det[2][0]`, color.py:37): every box of a frame carries the first
detection's name. A frame with no detection is one pair ('', '').

The object key is the prompt with every 'a ' and then every 'an ' substring removed, then
the colour word, then stripped (color.py:67): plain substring replacement, so a word
ending in 'a' before a space loses the 'a' and the space ("a banana split" ->
"banansplit"). Per frame, over the pairs whose name equals
the key: the frame is an object frame when any of twelve colour words is a substring of
a caption, and a colour frame when the target colour is (the two flags are independent:
a target colour outside the twelve can make colour frames without object frames, and a
ratio above 1). The video value is colour frames / object frames; a video with no object
frame gives no value at all (upstream leaves it out of the list and of the mean:
`NoObject`). The aggregate is the running mean over the videos kept.
"""

from typing import List, Sequence, Tuple

from benchmarks.vbench import dimension
from benchmarks.vbench.dimensions import grit_frames

COLOR_WORDS = ("white", "red", "pink", "blue", "silver", "purple", "orange", "green", "gray",
               "yellow", "black", "grey")


class NoObject(ValueError):
    """No frame of the video shows the object: upstream writes no entry for the video."""


def object_key(prompt: str, color: str) -> str:
    """The name the captions are matched under (see the module docstring)."""
    return prompt.replace("a ", "").replace("an ", "").replace(color, "").strip()


def caption_pairs(frame: grit_frames.Detections) -> List[Tuple[str, str]]:
    """(caption, name) per detection, every name the frame's first; [('', '')] for none."""
    if not len(frame):
        return [("", "")]
    return [(caption, frame.names[0]) for caption in frame.descriptions]


def frame_flags(frame: grit_frames.Detections, color: str, key: str) -> Tuple[bool, bool]:
    """(object frame, colour frame) of one frame."""
    is_object = is_color = False
    for caption, name in caption_pairs(frame):
        if name == key:
            is_object = is_object or any(word in caption for word in COLOR_WORDS)
            is_color = is_color or color in caption
    return is_object, is_color


def value(frames: Sequence[grit_frames.Detections], prompt: str, color: str
          ) -> dimension.Value:
    """The per-video value; NoObject when no frame is an object frame."""
    key = object_key(prompt, color)
    objects = colors = 0
    for frame in frames:
        is_object, is_color = frame_flags(frame, color, key)
        objects += is_object
        colors += is_color
    if objects == 0:
        raise NoObject(f"no frame shows {key!r} with a colour word (upstream drops the video)")
    ratio = colors / objects
    return dimension.Value(video_results=ratio, extras={"cur_success_frame_rate": ratio})
