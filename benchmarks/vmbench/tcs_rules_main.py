"""VMBench's TCS rules on given tracks and masks (benchmarks/vmbench/tcs.py), for debugging.

One event, from given tracks:
    bazel run //benchmarks/vmbench:tcs_rules -- --tracks=t.npy --visibility=v.npy \\
        --kind=vanish --first_keyframe=2 --fps=8 --width=720 --height=480
  prints the query frame (--query_frame_mode faithful: the keyframe index, as the official
  code; corrected: keyframe * step) and the edge / small / detect-error decisions.

A whole video, from its keyframe objects:
    bazel run //benchmarks/vmbench:tcs_rules -- --keyframes_json=k.json --video=0001.mp4
  k.json: {"objects_count": K, "keyframes": [{"<object id>": "<mask.npy>" or null, ...}, ...]}
  (one dict per keyframe, masks (H, W) relative to the json). Tracks are made with the
  weight-free LK grid tracker (NOT CoTracker3: NOT an official TCS). Prints TCS and the
  events. Exit codes: 0 done, 2 bad input, 1 internal error.
"""

import json
import sys

import cv2
import numpy as np
from absl import app
from absl import flags

from benchmarks.vmbench import tcs
from metrics import cli_support
from metrics.tracking import lk_tracker
from metrics.video import frames as frames_lib

_TRACKS = flags.DEFINE_string("tracks", None, "(T, N, 2) x/y tracks .npy (one event).")
_VISIBILITY = flags.DEFINE_string("visibility", None, "(T, N) bool visibility .npy.")
_KIND = flags.DEFINE_enum("kind", tcs.VANISH, [tcs.VANISH, tcs.EMERGE], "The event kind.")
_FIRST = flags.DEFINE_integer("first_keyframe", 0, "The object's first keyframe index.",
                              lower_bound=0)
_FPS = flags.DEFINE_float("fps", None, "The video's fps (keyframe step int(fps) - 1); "
                          "default: read from --video.")
_WIDTH = flags.DEFINE_integer("width", None, "Frame width (default: from --video).")
_HEIGHT = flags.DEFINE_integer("height", None, "Frame height (default: from --video).")
_MODE = flags.DEFINE_enum("query_frame_mode", tcs.QUERY_FAITHFUL, tcs.QUERY_MODES,
                          "faithful: the official quirk (keyframe index as the frame); "
                          "corrected: keyframe * step.")
_KEYFRAMES = flags.DEFINE_string("keyframes_json", None, "Keyframe objects of one video.")
_VIDEO = flags.DEFINE_string("video", None, "With --keyframes_json: the video to track.")
_GRID = flags.DEFINE_integer("grid_size", tcs.GRID_SIZE, "LK grid per side (official 50).",
                             lower_bound=1)


class Problem(ValueError):
    pass


def _npy(path):
    try:
        return np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise Problem(f"{path}: expected a .npy array, found {type(e).__name__}: {e}") from e


def _one_event():
    if not (_FPS.value and _WIDTH.value and _HEIGHT.value and _VISIBILITY.value):
        raise Problem("--fps, --width, --height and --visibility: expected with --tracks")
    tracks = _npy(cli_support.user_path(_TRACKS.value))
    visibility = _npy(cli_support.user_path(_VISIBILITY.value))
    step = tcs.keyframe_step(_FPS.value)
    start = tcs.query_frame(_FIRST.value, step, _MODE.value)
    try:
        decided = tcs.decisions(_KIND.value, tracks, visibility, start, _WIDTH.value,
                                _HEIGHT.value)
    except ValueError as e:
        raise Problem(f"{_TRACKS.value}: {e}") from e
    return {"kind": _KIND.value, "step": step, "query_frame": start,
            "query_frame_mode": _MODE.value, **decided}


def _video():
    spec_path = cli_support.user_path(_KEYFRAMES.value)
    try:
        spec = json.loads(spec_path.read_text())
        keyframes = spec["keyframes"]
        count = int(spec["objects_count"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise Problem(f"{spec_path}: expected {{\"objects_count\": K, \"keyframes\": "
                      f"[{{id: mask.npy or null}}, ...]}}, found {type(e).__name__}: {e}") from e
    dicts = [{obj: (None if m is None else _npy(spec_path.parent / m))
              for obj, m in kf.items()} for kf in keyframes]
    video = cli_support.user_path(_VIDEO.value)
    # complete=True, as the VMBench runner reads a video: one that OpenCV stops decoding
    # before the frames its container declares (cut short, damaged) is refused, not
    # scored on fewer frames.
    frames = frames_lib.load_frames(video, complete=True)
    capture = cv2.VideoCapture(str(video))
    fps = _FPS.value or capture.get(cv2.CAP_PROP_FPS)
    capture.release()
    height, width = frames.shape[1:3]
    step = tcs.keyframe_step(fps)

    def track(mask, start):
        return lk_tracker.track_grid(frames, _GRID.value, mask, min(start, len(frames) - 1))

    value, details = tcs.evaluate(dicts, count, step, track, width, height, _MODE.value)
    return {"temporal_coherence_score": value, "step": step, "query_frame_mode": _MODE.value,
            "tracker": lk_tracker.BACKEND + " (NOT official: no CoTracker3)", "events": details}


def main(argv):
    del argv
    try:
        if _TRACKS.value:
            out = _one_event()
        elif _KEYFRAMES.value and _VIDEO.value:
            out = _video()
        else:
            raise Problem("--tracks (one event) or --keyframes_json with --video: expected one")
    except (Problem, frames_lib.FrameInputError) as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(cli_support.EXIT_BAD_INPUT)
    except ValueError as e:  # e.g. a keyframe step of 0
        print(f"error: {e}", file=sys.stderr)
        sys.exit(cli_support.EXIT_BAD_INPUT)
    print(json.dumps(out, default=bool))


if __name__ == "__main__":
    app.run(main, flags_parser=cli_support.parse_flags)
