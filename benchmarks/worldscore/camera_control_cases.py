"""Deterministic camera_error calibration cases: DROID-format trajectories and the
camera_data.json they are scored against, plus the frame size of the instance.

`write(out_dir)` writes cases.json and blank PNG frames of each case's size (frames/NNN.png,
as the generators name them) for the official run (calibration/camera_error_official_run.py),
which feeds them to the official CameraErrorMetric with the tracker replaced by the case's
trajectory. camera_control_test.py compares ours with the numbers it recorded.
"""

import json
import pathlib
from typing import Dict, List

import numpy as np

_FX = np.diag([-1.0, 1.0, 1.0, 1.0])
_FZ = np.diag([1.0, 1.0, -1.0, 1.0])
FIRST_CAMERA = np.diag([-1.0, 1.0, -1.0, 1.0])


def axis_angle_matrix(axis, degrees: float) -> np.ndarray:
    """Rodrigues' rotation matrix (float64) about a (normalised) axis."""
    k = np.asarray(axis, np.float64) / np.linalg.norm(axis)
    a = np.radians(degrees)
    skew = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(a) * skew + (1 - np.cos(a)) * skew @ skew


def quaternion_xyzw(rot: np.ndarray) -> np.ndarray:
    """Unit quaternion (x, y, z, w), w >= 0, of a rotation matrix (Shepperd's method)."""
    m = np.asarray(rot, np.float64)
    tr = np.trace(m)
    if tr > 0:
        s = 2 * np.sqrt(tr + 1)
        q = [(m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s, s / 4]
    else:
        i = int(np.argmax(np.diag(m)))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = 2 * np.sqrt(1 + m[i, i] - m[j, j] - m[k, k])
        q = [0.0, 0.0, 0.0, (m[k, j] - m[j, k]) / s]
        q[i], q[j], q[k] = s / 4, (m[j, i] + m[i, j]) / s, (m[k, i] + m[i, k]) / s
    q = np.asarray(q)
    return q if q[3] >= 0 else -q


def droid_pose_of(c2w: np.ndarray) -> np.ndarray:
    """The [t, q(xyzw)] DROID pose whose official conversion gives back this c2w (the
    conversion is c2w = Fx @ P @ Fz, so P = Fx @ c2w @ Fz)."""
    p = _FX @ np.asarray(c2w, np.float64) @ _FZ
    return np.concatenate([p[:3, 3], quaternion_xyzw(p[:3, :3])])


def _pose(rot, t) -> np.ndarray:
    out = np.eye(4)
    out[:3, :3], out[:3, 3] = rot, t
    return out


def _random_trajectory(rng, n, step_deg=4.0, step_t=0.3):
    poses, rot, t = [], FIRST_CAMERA[:3, :3], np.zeros(3)
    for _ in range(n):
        poses.append(_pose(rot, t))
        rot = rot @ axis_angle_matrix(rng.normal(size=3), rng.uniform(0, step_deg))
        t = t + rng.normal(scale=step_t, size=3)
    return np.stack(poses)


def cases() -> List[Dict]:
    """name, height, width, trajectory (N x 7 DROID c2w) and camera_data of each case."""
    rng = np.random.default_rng(20261201)
    n = 7
    # The generated cameras start at FIRST_CAMERA (inv(diag(-1,1,-1,1) @ I)), the image of
    # DROID's identity first pose under the official conversion.
    pan = np.stack([_pose(FIRST_CAMERA[:3, :3] @ axis_angle_matrix([0, 1, 0], 30.0 * i / (n - 1)),
                          np.zeros(3)) for i in range(n)])
    static = np.tile(np.array([0, 0, 0, 0, 0, 0, 1.0]), (n, 1))
    ref = _random_trajectory(rng, n)
    scaled = ref.copy()
    scaled[:, :3, 3] /= 2.5
    for pose in scaled[1:]:  # rotations off by a few degrees: away from acos' flat spot at 0
        pose[:3, :3] = pose[:3, :3] @ axis_angle_matrix(rng.normal(size=3), 3.0)
    noisy_ref = _random_trajectory(rng, n, step_t=0.5)
    noisy_pred = _random_trajectory(rng, n, step_deg=6.0)
    noisy_ref[:, :3, 3] *= 2.0  # camera_speed 2: the evaluator divides it out again
    out = [
        dict(name="pan30_vs_static", height=512, width=512, trajectory=static,
             cameras=pan, scale=1.0),
        dict(name="scaled_by_2.5_rot3", height=480, width=720,
             trajectory=np.stack([droid_pose_of(p) for p in scaled]), cameras=ref, scale=1.0),
        dict(name="noisy_speed2", height=360, width=640,
             trajectory=np.stack([droid_pose_of(p) for p in noisy_pred]),
             cameras=noisy_ref, scale=2.0),
    ]
    return [dict(name=c["name"], height=c["height"], width=c["width"],
                 trajectory=np.asarray(c["trajectory"], np.float32).tolist(),
                 camera_data={"focal_length": 500, "scale": c["scale"],
                              "cameras_interp": np.asarray(c["cameras"]).tolist()})
            for c in out]


def write(out_dir) -> pathlib.Path:
    """cases.json and each case's blank frames under out_dir/<name>/frames/."""
    import cv2  # pylint: disable=import-outside-toplevel
    out = pathlib.Path(out_dir)
    all_cases = cases()
    for case in all_cases:
        frames = out / case["name"] / "frames"
        frames.mkdir(parents=True, exist_ok=True)
        blank = np.zeros((case["height"], case["width"], 3), np.uint8)
        for i in range(len(case["trajectory"])):
            cv2.imwrite(str(frames / f"{i:03d}.png"), blank)
    path = out / "cases.json"
    path.write_text(json.dumps(all_cases))
    return path
