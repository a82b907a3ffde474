"""scene: does Tag2Text's caption of each frame contain every word of the scene key (spec
§5.2; Vchitect/VBench@45e79ec vbench/scene.py:27-34).

A frame succeeds when every piece of the key split on single spaces is a substring of
the caption (so "bar" is found in "a barn", and a double space gives an empty piece that
is always found). The video value is successes / frames with both counts kept; the
aggregate is Σ successes / Σ frames. The model side (Tag2Text on the 16 middle frames
decoded at 384x384) is VBench part 2's; `value` takes its captions.
"""

from typing import Sequence

from benchmarks.vbench import dimension


def frame_success(caption: str, key: str) -> bool:
    return all(piece in caption for piece in key.split(" "))


def value(captions: Sequence[str], key: str) -> dimension.Value:
    if not captions:
        raise ValueError("no caption: upstream divides by zero (len(cur_video_pred) == 0)")
    hits = sum(frame_success(c, key) for c in captions)
    return dimension.Value(video_results=hits / len(captions),
                           extras={"success_frame_count": hits, "frame_count": len(captions)})
