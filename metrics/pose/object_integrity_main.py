"""Prints the object integrity score of a pose track (metrics/pose/object_integrity.py).

    bazel run //metrics/pose:object_integrity -- --keypoints=track.npz [--json]

--keypoints: an .npz with arrays `keypoints` (T, 17, 2), COCO-17 in pixels, and `scores`
(T, 17), one pose per frame. The last line printed is the score. Exit codes: 0 done,
2 bad input, 1 internal error.
"""

import json
import sys

import numpy as np
from absl import app
from absl import flags

from metrics import cli_support
from metrics.pose import object_integrity

_KEYPOINTS = flags.DEFINE_string("keypoints", None, "An .npz with arrays keypoints (T, 17, 2) "
                                 "and scores (T, 17).")
_JSON = flags.DEFINE_boolean("json", False, "Print one JSON line.")


def _load(value):
    path = cli_support.user_path(value)
    try:
        with np.load(path, allow_pickle=False) as data:
            missing = [k for k in ("keypoints", "scores") if k not in data.files]
            if missing:
                raise ValueError(f"no array named {', '.join(missing)} (found: "
                                 f"{', '.join(data.files) or 'none'})")
            return path, data["keypoints"], data["scores"]
    except (OSError, ValueError) as e:
        raise ValueError(f"{path}: expected an .npz with arrays keypoints (T, 17, 2) and "
                         f"scores (T, 17): {e}") from e


def main(argv):
    del argv
    try:
        path, keypoints, scores = _load(_KEYPOINTS.value)
        try:
            result = object_integrity.object_integrity(keypoints, scores)
        except ValueError as e:
            raise ValueError(f"{path}: {e}") from e
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(cli_support.EXIT_BAD_INPUT)
    if _JSON.value:
        print(json.dumps({"object_integrity": result.score, "length_score": result.length_score,
                          "angle_score": result.angle_score,
                          "abnormal_parts": result.abnormal_parts,
                          "abnormal_joints": result.abnormal_joints}))
        return
    print(f"length score {result.length_score:.6f} (abnormal: "
          f"{', '.join(result.abnormal_parts) or 'none'})")
    print(f"angle score {result.angle_score:.6f} (abnormal: "
          f"{', '.join(result.abnormal_joints) or 'none'})")
    print(f"{result.score!r}")


if __name__ == "__main__":
    flags.mark_flag_as_required("keypoints")
    app.run(main, flags_parser=cli_support.parse_flags)
