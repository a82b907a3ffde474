"""Camera score from rotation-only ATE: a "coverage" score.

The scoring half of a camera-controllability metric of a released video benchmark,
formula for formula; it is independent of how the estimated poses were made.
Only rotations are compared: translation, scale and intrinsics play no part.

With n = min(len(gt), len(est)) poses, R_align = R_gt[0] @ R_est[0].T and
geo(A, B) = degrees(arccos(clip((trace(A.T @ B) - 1) / 2, -1, 1))):

    e_i      = geo(R_align @ R_est[i], R_gt[i])        for i < n
    ATE_rot  = sqrt(mean(e_i ** 2))
    total_gt = geo(R_gt[0].T @ R_gt[n - 1], I)         (end to end only)
    raw      = max(0, 1 - ATE_rot / max(total_gt, 10))
    mean_err = mean_i geo(R_gt[i].T @ R_gt[i+1], R_est[i].T @ R_est[i+1])

All values are unrounded; a benchmark rounds (and turns raw into a percentage) as its
own code does.
"""

import dataclasses
from typing import Optional

import numpy as np

MIN_GT_ROTATION_DEG = 10.0
MIN_POSES = 2


@dataclasses.dataclass(frozen=True)
class RotationAteScore:
    """The rotation-ATE score of one clip and its parts.

    Attributes:
        score: raw, in [0, 1].
        ate_rot_deg: RMS rotation error after frame-0 alignment (degrees).
        total_gt_rot_deg: End-to-end GT rotation (degrees).
        mean_rot_error_deg: Mean frame-to-frame relative rotation error
            (degrees, a diagnostic).
        num_poses: n, the number of poses compared.
    """

    score: float
    ate_rot_deg: float
    total_gt_rot_deg: float
    mean_rot_error_deg: float
    num_poses: int


def _rotations(poses, name):
    """Returns the (N, 3, 3) rotation blocks of (N, 3, 3) or (N, 4, 4) poses."""
    array = np.asarray(poses, dtype=np.float64)
    if array.ndim != 3 or array.shape[1:] not in ((3, 3), (4, 4)):
        raise ValueError(
            f"{name} must have shape (N, 3, 3) or (N, 4, 4), got "
            f"{array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} holds NaN or infinite values")
    return array[:, :3, :3]


def geodesic_deg(a, b):
    """Angle of the rotation taking a to b, in degrees (official formula).

    Args:
        a: (3, 3) rotation matrix.
        b: (3, 3) rotation matrix.

    Returns:
        `degrees(arccos(clip((trace(a.T @ b) - 1) / 2, -1, 1)))` as a float.
    """
    cosine = float(np.clip((np.trace(a.T @ b) - 1.0) / 2.0, -1.0, 1.0))
    return float(np.degrees(np.arccos(cosine)))


def rotation_ate_score(gt_poses, est_poses) -> Optional[RotationAteScore]:
    """Scores estimated camera rotations against the GT ones.

    Args:
        gt_poses: GT camera-to-world poses, (N, 4, 4) or rotations (N, 3, 3),
            already resampled to the generated frames.
        est_poses: Estimated camera-to-world poses or rotations, one per
            generated frame, in the same camera convention as gt_poses.

    Returns:
        A RotationAteScore, or None when fewer than 2 poses can be
        compared. (The official code returns None when the estimator gives
        fewer than 2 poses; with fewer than 2 GT poses it would report a
        meaningless 1.0, so that case is None here too.)

    Raises:
        ValueError: If an input is not a finite (N, 3, 3) or (N, 4, 4) array.
    """
    r_gt_all = _rotations(gt_poses, "gt_poses")
    r_est_all = _rotations(est_poses, "est_poses")
    n = min(len(r_gt_all), len(r_est_all))
    if n < MIN_POSES:
        return None
    r_gt, r_est = r_gt_all[:n], r_est_all[:n]

    r_align = r_gt[0] @ r_est[0].T
    errors = [geodesic_deg(r_align @ r_est[i], r_gt[i]) for i in range(n)]
    ate_rot = float(np.sqrt(np.mean(np.array(errors) ** 2)))
    total_gt = geodesic_deg(r_gt[0].T @ r_gt[n - 1], np.eye(3))
    coverage = max(0.0, 1.0 - ate_rot / max(total_gt, MIN_GT_ROTATION_DEG))

    frame_errors = [
        geodesic_deg(r_gt[i].T @ r_gt[i + 1], r_est[i].T @ r_est[i + 1])
        for i in range(n - 1)
    ]
    mean_error = float(np.mean(frame_errors))
    return RotationAteScore(score=coverage, ate_rot_deg=ate_rot, total_gt_rot_deg=total_gt,
                            mean_rot_error_deg=mean_error, num_poses=n)
