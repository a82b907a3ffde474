"""WorldScore camera_control.camera_error: the arithmetic around DROID-SLAM (spec §4.1).

Official source: worldscore/benchmark/metrics/third_party/camera_error_metrics.py and
helpers/evaluator.py (haoyi-duan/WorldScore@344983c). What this module reproduces:

* Input: every frame resized to about 512 x 512 pixels and cropped to multiples of 8
  (metrics/camera/slam_input.py), with the FIXED calib (500, 500, 256, 256) scaled by
  the resize factors whatever the frame size. Quirk kept: the principal point (256, 256)
  is the centre only of a 512 x 512 frame; for any other size it is off-centre.
* Predicted poses: DROID-SLAM's trajectory, one [tx, ty, tz, qx, qy, qz, qw] camera-to-
  world pose per frame (float32; terminate() returns the filler's world-to-camera poses
  inverted), turned into 4x4 matrices (lietorch's SE3.matrix: the unit-quaternion
  formula, here quaternion_pose_matrices), then P <- diag(-1,1,1,1) P,
  w2c <- diag(1,1,-1,1) inv(P), P <- inv(w2c), all in float32, then float64.
* Reference poses: camera_data.json's "cameras_interp" (c2w), read into a float32 tensor
  (torch.tensor of the nested lists), then float64, translations divided by "scale".
* Errors (metrics/camera/trajectory_error.py): no rotation alignment, the scalar
  translation scale from cvxpy with its fallback, mean geodesic rotation error (degrees)
  and mean translation error. Raw score [r_err, t_err]; normalised by the geometric mean
  of the two inverted min-max scores (normalize.py, ranges [0, 15] and [0, 0.5]).
"""

import dataclasses
from typing import Mapping, Sequence

import numpy as np

from benchmarks.worldscore import aspects
from benchmarks.worldscore import droid_slam
from benchmarks.worldscore import normalize
from metrics.camera import slam_input
from metrics.camera import trajectory_error

CALIB = droid_slam.OFFICIAL.calib
METRIC = aspects.METRICS[("camera_control", "camera_error")]
_FLIP_X = (-1.0, 1.0, 1.0, 1.0)
_FLIP_Z = (1.0, 1.0, -1.0, 1.0)


@dataclasses.dataclass(frozen=True)
class CameraError:
    """One instance's camera_error: raw pair, its parts and the normalised score."""

    rotation_error_deg: float
    translation_error: float
    scale: trajectory_error.ScaleFit
    num_frames: int

    @property
    def score(self):
        return [self.rotation_error_deg, self.translation_error]

    @property
    def score_normalized(self) -> float:
        return normalize.normalize(METRIC, self.score)


def droid_input(frame_bgr: np.ndarray, area: int = slam_input.DEFAULT_AREA):
    """(frame, intrinsics) the official image_stream yields for one cv2.imread frame:
    the resized and cropped (H, W, 3) uint8 BGR frame and the float32 scaled calib.
    `area` other than 512 * 512 is for tests only (not the official input)."""
    h0, w0 = np.asarray(frame_bgr).shape[:2]
    return (slam_input.prepare_frame(frame_bgr, area),
            slam_input.scaled_intrinsics(CALIB, h0, w0, area))


def image_stream(frames_bgr, stride: int = droid_slam.OFFICIAL.stride,
                 area: int = slam_input.DEFAULT_AREA):
    """The official image_stream over decoded BGR frames: (t, [1, 3, H, W] uint8 tensor,
    float32 (fx, fy, cx, cy) tensor) for every `stride`-th frame, t counting from 0."""
    import torch  # pylint: disable=import-outside-toplevel
    for t, frame in enumerate(list(frames_bgr)[::stride]):
        image, intrinsics = droid_input(frame, area)
        yield t, torch.as_tensor(image).permute(2, 0, 1)[None], torch.as_tensor(intrinsics)


def quaternion_pose_matrices(poses):
    """(N, 4, 4) float32 torch matrices of (N, 7) [t, q(xyzw)] poses, the rotation by
    the unit-quaternion formula (2x, 2y, 2z products) in float32."""
    import torch  # pylint: disable=import-outside-toplevel
    p = torch.as_tensor(np.asarray(poses, dtype=np.float32))
    if p.ndim != 2 or p.shape[1] != 7:
        raise ValueError(f"poses must have shape (N, 7) [tx, ty, tz, qx, qy, qz, qw], "
                         f"got {tuple(p.shape)}")
    t, (x, y, z, w) = p[:, :3], p[:, 3:].unbind(-1)
    tx, ty, tz = 2 * x, 2 * y, 2 * z
    rot = torch.stack([
        1 - (ty * y + tz * z), tx * y - tz * w, tx * z + ty * w,
        tx * y + tz * w, 1 - (tx * x + tz * z), ty * z - tx * w,
        tx * z - ty * w, ty * z + tx * w, 1 - (tx * x + ty * y)], -1).view(-1, 3, 3)
    out = torch.eye(4, dtype=torch.float32).repeat(len(p), 1, 1)
    out[:, :3, :3] = rot
    out[:, :3, 3] = t
    return out


def droid_to_worldscore_c2w(matrices) -> np.ndarray:
    """The official convention change of DROID's c2w matrices (float32 torch, (N, 4, 4))
    to the generated cameras' convention, float64 numpy."""
    import torch  # pylint: disable=import-outside-toplevel
    m = torch.as_tensor(matrices)
    m = torch.diag(torch.tensor(_FLIP_X, dtype=m.dtype)) @ m
    w2c = torch.diag(torch.tensor(_FLIP_Z, dtype=m.dtype)) @ torch.inverse(m)
    return torch.inverse(w2c).double().numpy()


def reference_c2w(camera_data: Mapping, path: str = "camera_data.json") -> np.ndarray:
    """cameras_interp as the evaluator reads it: float32, then float64, t / scale."""
    import torch  # pylint: disable=import-outside-toplevel
    if "cameras_interp" not in camera_data:
        raise ValueError(f"{path}: expected a 'cameras_interp' list of 4x4 matrices")
    try:
        cams = torch.tensor(camera_data["cameras_interp"])
    except (TypeError, ValueError) as e:
        raise ValueError(f"{path}: 'cameras_interp' is not a list of 4x4 matrices: {e}") from e
    if cams.ndim != 3 or tuple(cams.shape[1:]) != (4, 4):
        raise ValueError(f"{path}: 'cameras_interp' must be N x 4 x 4, got {tuple(cams.shape)}")
    out = cams.double().numpy().copy()
    out[:, :3, 3] = out[:, :3, 3] / camera_data.get("scale", 1.0)
    return out


def check_frame_count(camera_data: Mapping, total_frames: int, num_frames: int, path: str):
    """The evaluator's check: len(cameras_interp) == total_frames == number of frames."""
    n = len(camera_data.get("cameras_interp", ()))
    if n != total_frames or total_frames != num_frames:
        raise ValueError(f"{path}: {n} cameras_interp, total_frames {total_frames}, "
                         f"{num_frames} frames; the official evaluator needs all three equal")


def camera_error(pred_c2w: Sequence, ref_c2w: Sequence) -> CameraError:
    """camera_error of float64 (N, 4, 4) predictions (already in the generated cameras'
    convention) against the reference poses (already divided by the scale)."""
    pred, ref = np.asarray(pred_c2w, np.float64), np.asarray(ref_c2w, np.float64)
    if pred.shape != ref.shape or pred.ndim != 3 or pred.shape[1:] != (4, 4):
        raise ValueError(f"expected two (N, 4, 4) pose stacks of one length, got "
                         f"{pred.shape} and {ref.shape}")
    fit = trajectory_error.fit_translation_scale(ref[:, :3, 3], pred[:, :3, 3])
    t_err = trajectory_error.translation_errors(ref[:, :3, 3], pred[:, :3, 3], fit.scale)
    r_err = trajectory_error.geodesic_errors_deg(pred[:, :3, :3], ref[:, :3, :3])
    return CameraError(float(np.mean(r_err)), float(np.mean(t_err)), fit, len(pred))


def camera_error_from_droid(trajectory, camera_data: Mapping) -> CameraError:
    """camera_error of a DROID trajectory ((N, 7) c2w) against camera_data.json."""
    pred = droid_to_worldscore_c2w(quaternion_pose_matrices(trajectory))
    return camera_error(pred, reference_c2w(camera_data))
