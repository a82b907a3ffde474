"""Prints the motion degree of point tracks (metrics/tracking/motion_degree.py).

    bazel run //metrics/tracking:motion_amplitude -- --tracks=tracks.npy --width=720 --height=480
    bazel run //metrics/tracking:motion_amplitude -- --video=clip.mp4 [--mask=mask.npy]

--tracks: a .npy of shape (T, N, 2) (or CoTracker's (1, T, N, 2)) in video pixels.
--video: tracks made here with the weight-free OpenCV Lucas-Kanade grid tracker
(metrics/tracking/lk_tracker.py; NOT CoTracker3, so NOT an official number), on the
(H, W) --mask .npy's grid points if given. --json prints one JSON line.
Exit codes: 0 done, 2 bad input, 1 internal error.
"""

import json
import sys

import numpy as np
from absl import app
from absl import flags

from metrics import cli_support
from metrics.tracking import lk_tracker
from metrics.tracking import motion_degree
from metrics.video import frames as frames_lib

_TRACKS = flags.DEFINE_string("tracks", None, "A .npy of (T, N, 2) x/y tracks in pixels.")
_WIDTH = flags.DEFINE_integer("width", None, "Frame width of --tracks (pixels).", lower_bound=1)
_HEIGHT = flags.DEFINE_integer("height", None, "Frame height of --tracks.", lower_bound=1)
_VIDEO = flags.DEFINE_string("video", None, "Track this video with the LK grid instead.")
_MASK = flags.DEFINE_string("mask", None, "With --video: an (H, W) .npy mask for the grid.")
_GRID = flags.DEFINE_integer("grid_size", 30, "With --video: grid points per side.",
                             lower_bound=1)
_JSON = flags.DEFINE_boolean("json", False, "Print one JSON line.")


class InputProblem(ValueError):
    pass


def _load_npy(flag, value):
    path = cli_support.user_path(value)
    try:
        return np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise InputProblem(f"{path}: expected a .npy array ({flag}), found "
                           f"{type(e).__name__}: {e}") from e


def _compute():
    if bool(_TRACKS.value) == bool(_VIDEO.value):
        raise InputProblem("--tracks / --video: expected exactly one of them")
    if _TRACKS.value:
        if not (_WIDTH.value and _HEIGHT.value):
            raise InputProblem("--width/--height: expected the frame size of --tracks")
        tracks = _load_npy("--tracks", _TRACKS.value)
        if tracks.ndim == 4 and tracks.shape[0] == 1:
            tracks = tracks[0]
        width, height, backend = _WIDTH.value, _HEIGHT.value, "given tracks"
    else:
        frames = frames_lib.load_frames(cli_support.user_path(_VIDEO.value))
        mask = _load_npy("--mask", _MASK.value) if _MASK.value else None
        tracks, _ = lk_tracker.track_grid(frames, _GRID.value, mask)
        height, width = frames.shape[1:3]
        backend = lk_tracker.BACKEND + " (NOT official: no CoTracker3)"
    try:
        value = motion_degree.motion_degree(tracks, width, height)
    except ValueError as e:
        raise InputProblem(f"{_TRACKS.value or _VIDEO.value}: {e}") from e
    return {"motion_degree": value, "points": int(tracks.shape[1]),
            "frames": int(tracks.shape[0]), "width": width, "height": height,
            "backend": backend}


def main(argv):
    del argv
    try:
        out = _compute()
    except (InputProblem, frames_lib.FrameInputError) as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(cli_support.EXIT_BAD_INPUT)
    if _JSON.value:
        print(json.dumps(out))
    else:
        print(f"motion degree {out['motion_degree']:.6f} over {out['points']} points, "
              f"{out['frames']} frames ({out['backend']})")


if __name__ == "__main__":
    app.run(main, flags_parser=cli_support.parse_flags)
