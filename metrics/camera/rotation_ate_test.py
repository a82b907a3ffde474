"""Tests for metrics.camera.rotation_ate on hand-made rotations.

Every expected value is worked out by hand in the comments; rotations about
one axis compose by adding angles, so geodesic errors are angle differences.
"""

import math

import numpy as np
import pytest

from metrics.camera import rotation_ate


def _rot(axis, deg):
    """Right-handed rotation by deg degrees about "x", "y" or "z"."""
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return {
        "x": np.array([[1, 0, 0], [0, c, -s], [0, s, c]]),
        "y": np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]]),
        "z": np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]),
    }[axis]


def _yaws(degrees):
    return np.stack([_rot("y", d) for d in degrees])


def _as_poses(rotations):
    poses = np.tile(np.eye(4), (len(rotations), 1, 1))
    poses[:, :3, :3] = rotations
    poses[:, :3, 3] = np.arange(len(rotations))[:, None]  # Ignored.
    return poses


def test_geodesic_of_known_rotations():
    assert rotation_ate.geodesic_deg(np.eye(3), _rot("y", 90)) == pytest.approx(
        90.0)
    assert rotation_ate.geodesic_deg(_rot("z", 10), _rot("z", -25)) == (
        pytest.approx(35.0))
    # A trace slightly above 3 (rounding) is clipped, not NaN.
    assert rotation_ate.geodesic_deg(np.eye(3), np.eye(3) * (1 + 1e-12)) == 0.0


def test_perfect_estimate_scores_one():
    gt = _as_poses(_yaws([0, 10, 20, 30, 40]))
    result = rotation_ate.rotation_ate_score(gt, gt[:, :3, :3])
    assert (result.score, result.ate_rot_deg, result.mean_rot_error_deg) == (1.0, 0.0, 0.0)
    assert (result.total_gt_rot_deg, result.num_poses) == (pytest.approx(40.0), 5)


def test_constant_world_offset_is_aligned_away_at_frame_zero():
    # est_i = W gt_i with W a fixed 5-degree yaw (about world z here): the
    # alignment R_align = gt_0 est_0^T = W^T removes it exactly, so ATE = 0.
    # (gt_0 is not I and W does not commute with it, so the side on which
    # R_align is built matters: est_0^T gt_0 would leave errors.)
    gt = _yaws([15, 25, 35, 45, 55])
    offset = _rot("z", 5.0)
    est = np.stack([offset @ r for r in gt])
    result = rotation_ate.rotation_ate_score(gt, est)
    assert result.ate_rot_deg == pytest.approx(0.0, abs=1e-6)
    assert result.score == pytest.approx(1.0)
    # Relative rotations est_i^T est_i+1 = gt_i^T gt_i+1: no frame error.
    assert result.mean_rot_error_deg == pytest.approx(0.0, abs=1e-6)


def test_camera_frame_offset_is_not_aligned_away():
    # est_i = gt_i Q with Q = Rz(90): R_align = Q^T, so frame 1 becomes
    # Q^T Ry(90) Q = Rx(90), which is 120 degrees from Ry(90):
    # tr(Rx(90)^T Ry(90)) = 0 -> arccos(-1/2) = 120. ATE = sqrt(120^2 / 2),
    # total GT = 90, raw = 1 - 84.853 / 90.
    gt = _yaws([0, 90])
    est = np.stack([r @ _rot("z", 90) for r in gt])
    result = rotation_ate.rotation_ate_score(gt, est)
    assert result.ate_rot_deg == pytest.approx(math.sqrt(120.0**2 / 2))
    assert result.score == pytest.approx(1 - math.sqrt(7200) / 90)
    assert result.mean_rot_error_deg == pytest.approx(120.0)


def test_linearly_growing_error_matches_closed_form():
    # gt yaw 10 i, est yaw 11 i for i = 0..n-1: e_i = i degrees, so
    # ATE = sqrt(sum i^2 / n) = sqrt((n - 1)(2n - 1) / 6); for n = 5 that is
    # sqrt(6). Total GT = 40, raw = 1 - sqrt(6) / 40. Every relative
    # rotation is off by 1 degree, so MeanRotErrorDeg = 1.
    n = 5
    gt = _as_poses(_yaws([10.0 * i for i in range(n)]))
    est = _yaws([11.0 * i for i in range(n)])
    result = rotation_ate.rotation_ate_score(gt, est)
    ate = math.sqrt((n - 1) * (2 * n - 1) / 6)
    assert ate == pytest.approx(math.sqrt(6))
    assert result.ate_rot_deg == pytest.approx(ate)
    assert result.total_gt_rot_deg == pytest.approx(40.0)
    assert result.score == pytest.approx(1 - ate / 40)
    assert result.mean_rot_error_deg == pytest.approx(1.0)


def test_small_total_gt_rotation_uses_ten_degrees():
    # gt yaw i degrees (total 4), est yaw 1.5 i: e_i = 0.5 i, ATE =
    # 0.5 sqrt(6) = 1.2247. raw = 1 - 1.2247 / max(4, 10) = 0.8775, not
    # 1 - 1.2247 / 4 = 0.6938.
    gt = _yaws([1.0 * i for i in range(5)])
    est = _yaws([1.5 * i for i in range(5)])
    result = rotation_ate.rotation_ate_score(gt, est)
    assert result.total_gt_rot_deg == pytest.approx(4.0)
    assert result.ate_rot_deg == pytest.approx(0.5 * math.sqrt(6))
    assert result.score == pytest.approx(1 - 0.5 * math.sqrt(6) / 10)
    assert result.mean_rot_error_deg == pytest.approx(0.5)


def test_score_clamps_at_zero_and_total_is_end_to_end():
    # Out and back: 0, 30, 60, 30, 0. End to end the GT turns 0 degrees, so
    # the denominator is 10. A static estimate errs by 0, 30, 60, 30, 0:
    # ATE = sqrt(5400 / 5) = 32.863 > 10, so the raw score clamps to 0.
    gt = _yaws([0, 30, 60, 30, 0])
    est = np.tile(np.eye(3), (5, 1, 1))
    result = rotation_ate.rotation_ate_score(gt, est)
    assert result.total_gt_rot_deg == pytest.approx(0.0, abs=1e-6)
    assert result.ate_rot_deg == pytest.approx(math.sqrt(1080))
    assert result.score == 0.0
    assert result.mean_rot_error_deg == pytest.approx(30.0)


def test_compares_only_the_first_min_length_poses():
    # gt has 6 poses, est 4: only the first 4 count, and the total GT
    # rotation runs from gt[0] to gt[3] (30 degrees), not to gt[5] (90).
    gt = _yaws([0, 10, 20, 30, 170, 90])
    est = _yaws([0, 10, 20, 30])
    result = rotation_ate.rotation_ate_score(gt, est)
    assert result.num_poses == 4
    assert result.total_gt_rot_deg == pytest.approx(30.0)
    assert result.score == pytest.approx(1.0)
    # Swapped lengths truncate the same way.
    again = rotation_ate.rotation_ate_score(est, gt)
    assert (again.num_poses, again.total_gt_rot_deg) == (4, pytest.approx(30.0))


def test_mean_rotation_error_hand_case():
    # GT static. est yaw 0, 2, 2: relative est rotations 2 and 0 degrees,
    # GT ones 0 and 0, so MeanRotErrorDeg = (2 + 0) / 2 = 1. Errors after
    # alignment 0, 2, 2: ATE = sqrt(8 / 3) = 1.633, raw = 1 - 0.1633.
    gt = np.tile(np.eye(3), (3, 1, 1))
    est = _yaws([0, 2, 2])
    result = rotation_ate.rotation_ate_score(gt, est)
    assert result.mean_rot_error_deg == pytest.approx(1.0)
    assert result.ate_rot_deg == pytest.approx(math.sqrt(8 / 3))
    assert result.score == pytest.approx(1 - math.sqrt(8 / 3) / 10)


def test_outputs_are_unrounded():
    gt = _yaws([0.0, 7.123456, 13.3333333])
    est = _yaws([0.0, 7.0, 13.0])
    result = rotation_ate.rotation_ate_score(gt, est)
    # e = 0, 0.123456, 0.3333333; ATE = sqrt((0.123456^2 + 0.3333333^2) / 3).
    ate = math.sqrt((0.123456**2 + 0.3333333**2) / 3)
    assert result.ate_rot_deg == pytest.approx(ate, abs=1e-9)
    assert result.total_gt_rot_deg == pytest.approx(13.3333333, abs=1e-9)
    assert result.score == pytest.approx(1 - ate / 13.3333333, abs=1e-12)
    assert result.mean_rot_error_deg == pytest.approx((0.123456 + 0.2098773) / 2, abs=1e-6)


@pytest.mark.parametrize("gt_len,est_len", [(5, 1), (1, 5), (0, 3)])
def test_fewer_than_two_poses_gives_none(gt_len, est_len):
    gt = _yaws([0.0] * gt_len) if gt_len else np.zeros((0, 3, 3))
    assert rotation_ate.rotation_ate_score(
        gt, _yaws([0.0] * est_len)) is None


@pytest.mark.parametrize("bad", [
    np.zeros((3, 3)), np.zeros((2, 3, 4)), np.full((2, 3, 3), np.nan)])
def test_bad_input_raises_value_error(bad):
    with pytest.raises(ValueError):
        rotation_ate.rotation_ate_score(bad, _yaws([0, 1]))
    with pytest.raises(ValueError):
        rotation_ate.rotation_ate_score(_yaws([0, 1]), bad)


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
