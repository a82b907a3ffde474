"""Prints the rotation-ATE camera score of one generated clip, weight-free.

The score is the rotation-only ATE "coverage" of metrics.camera.rotation_ate
(unrounded), with the generated clip's camera rotations from the weight-free backend
"classical-two-view-rotation" (SIFT + homography / essential matrix), not from a
learned pose model, so the output says "official: false".

Frames are shrunk to --max_side (640, INTER_AREA). GT poses
are resampled uniformly to the generated frame count; the GT intrinsics are
rescaled from --gt_size to the generated frame size.

Usage:
  bazel run //metrics/camera:rotation_ate_score -- \\
      --frames=gen_frames --gt_poses=clip/5/poses.npy \\
      --intrinsics=clip/5/intrinsics.npy --gt_size=1280x720 --json

Relative paths are taken from where the command was run. Exit codes: 0 done,
2 bad input (missing or unreadable file, bad flag, fewer than 2 frames).
"""

import dataclasses
import json
import sys
from typing import Optional, Sequence

from absl import app
from absl import flags

from metrics import cli_support
from metrics.camera import gt_poses
from metrics.camera import intrinsics
from metrics.camera import rotation_ate
from metrics.camera import two_view_rotation
from metrics.video import frames as frames_lib

_FRAMES = flags.DEFINE_string(
    "frames", None, "Generated clip: a frame folder or a video file.")
_GT_POSES = flags.DEFINE_string(
    "gt_poses", None, "GT camera-to-world poses: poses.npy (N, 4, 4), a "
    "MapAnything .npz (cam_c2w) or a UE5 camera_full{n}.csv.")
_INTRINSICS = flags.DEFINE_string(
    "intrinsics", None, "GT intrinsics: intrinsics.npy (N, 4) [fx, fy, cx, "
    "cy] (first row used), a MapAnything .npz (intrinsic, 3x3) or a UE5 "
    "camera_full{n}.csv.")
_GT_SIZE = flags.DEFINE_string(
    "gt_size", None, "WxH, the GT image size the intrinsics refer to.")
_MAX_SIDE = flags.DEFINE_integer(
    "max_side", 640, "Generated frames whose longer side exceeds this are "
    "downscaled first (INTER_AREA, never upscaled), as the official code does.",
    lower_bound=1)
_JSON = flags.DEFINE_boolean(
    "json", False, "Print one JSON object instead of text.")

flags.register_validator(
    "gt_size", lambda value: value is None or _is_size(value),
    message="--gt_size must be WxH with positive integers, e.g. 1280x720")


def _is_size(text):
    try:
        intrinsics.parse_size(text)
    except ValueError:
        return False
    return True


@dataclasses.dataclass(frozen=True)
class CameraResult:
    """The rotation-ATE score of one clip and how its poses were estimated.

    Attributes:
        score: The rotation_ate.RotationAteScore.
        frames: Number of generated frames.
        generated_size: (width, height) of the frames as estimated.
        failed_pairs: Consecutive pairs whose rotation fell back to I.
        pair_methods: {method: count} over the consecutive pairs.
    """

    score: rotation_ate.RotationAteScore
    frames: int
    generated_size: tuple
    failed_pairs: int
    pair_methods: dict


def evaluate(frames_path, poses_path, intrinsics_path, gt_size, max_side):
    """Loads the inputs, estimates the rotations and scores them.

    Args:
        frames_path: Frame folder or video of the generated clip.
        poses_path: GT pose file (see gt_poses.load_pose_file).
        intrinsics_path: GT intrinsics file (see intrinsics.load_intrinsics).
        gt_size: (width, height) the GT intrinsics refer to.
        max_side: Longest allowed side of the generated frames.

    Returns:
        A CameraResult.

    Raises:
        FileNotFoundError, ValueError: For missing or malformed inputs
            (frames.FrameInputError is a ValueError), or fewer than 2 frames.
    """
    clip = frames_lib.load_frames(frames_path, max_side=max_side)
    if len(clip) < rotation_ate.MIN_POSES:
        raise frames_lib.FrameInputError(
            frames_path, f"at least {rotation_ate.MIN_POSES} frames",
            f"{len(clip)}")
    gt = gt_poses.resample_poses(gt_poses.load_pose_file(poses_path),
                                 len(clip))
    size = (clip.shape[2], clip.shape[1])
    k = intrinsics.rescale(intrinsics.load_intrinsics(intrinsics_path),
                           gt_size, size)
    estimate = two_view_rotation.estimate_rotations(clip, k)
    score = rotation_ate.rotation_ate_score(gt, estimate.rotations)
    counts = {m: estimate.methods.count(m) for m in (
        two_view_rotation.METHOD_HOMOGRAPHY,
        two_view_rotation.METHOD_ESSENTIAL, two_view_rotation.METHOD_FAILED)}
    return CameraResult(score=score, frames=len(clip), generated_size=size,
                        failed_pairs=estimate.failures, pair_methods=counts)


def to_record(result, frames_path):
    """The result as a JSON-ready dict."""
    score = result.score
    return {
        "score": score.score,
        "ate_rot_deg": score.ate_rot_deg,
        "total_gt_rot_deg": score.total_gt_rot_deg,
        "mean_rot_error_deg": score.mean_rot_error_deg,
        "backend": two_view_rotation.BACKEND_NAME,
        "official": False,
        "frames": result.frames,
        "generated_size": list(result.generated_size),
        "failed_pairs": result.failed_pairs,
        "pair_methods": result.pair_methods,
        "generated": frames_path,
    }


def format_text(record):
    """Readable lines for a record from to_record (no trailing newline)."""
    width, height = record["generated_size"]
    methods = ", ".join(f"{k} {v}" for k, v in record["pair_methods"].items())
    return "\n".join([
        f"generated:              {record['generated']} ({record['frames']} "
        f"frames, {width}x{height})",
        f"backend:                {record['backend']} (official: false; the "
        "official backend is MapAnything)",
        f"pairs:                  {methods}",
        f"rotation-ATE score:     {record['score']!r} (0-1, unrounded)",
        f"ATE rotation (deg):     {record['ate_rot_deg']!r}",
        f"total GT rotation (deg): {record['total_gt_rot_deg']!r}",
        f"mean rotation error:    {record['mean_rot_error_deg']!r} deg",
    ])


def main(argv: Sequence[str]) -> Optional[int]:
    if len(argv) > 1:
        raise app.UsageError(
            f"unexpected arguments: {' '.join(argv[1:])}",
            exitcode=cli_support.EXIT_BAD_INPUT)
    try:
        result = evaluate(
            cli_support.user_path(_FRAMES.value),
            cli_support.user_path(_GT_POSES.value),
            cli_support.user_path(_INTRINSICS.value),
            intrinsics.parse_size(_GT_SIZE.value), _MAX_SIDE.value)
    except (FileNotFoundError, ValueError) as e:
        message = str(e).replace("\r", " ").replace("\n", " ")
        print(f"error: {message}", file=sys.stderr)
        return cli_support.EXIT_BAD_INPUT
    record = to_record(result, _FRAMES.value)
    print(json.dumps(record) if _JSON.value else format_text(record))
    return 0


if __name__ == "__main__":
    flags.mark_flags_as_required(["frames", "gt_poses", "intrinsics",
                                  "gt_size"])
    app.run(main, flags_parser=cli_support.parse_flags)
