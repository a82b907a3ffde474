"""Tests for the weight-free rotation backend (metrics.camera.two_view_rotation).

Accuracy bounds were measured on fixture clips (seeds 0-5) and set with
margin:
- the fixture's pan (40 degrees out and back, camera drifting up to 0.3 m in
  a 5-7 m room), rendered at 240x320: worst per-frame error after frame-0
  alignment 2.00-2.24 degrees, CameraControllability 0.832-0.849. The error
  is mostly the translation that the rotation-only model reads as rotation.
  Bounds: 3 degrees per frame, score > 0.8.
- the same pan without translation at the fixture's generated size 96x128:
  worst per-frame error 0.45-0.65 degrees, score 0.956-0.975. Bounds: 1.5
  degrees, score > 0.93.
- a one-way 30-degree pan at 96x128, no translation: worst error 0.37-0.90
  degrees, score 0.984-0.994. Bounds: 2 degrees, score > 0.95.
"""

import math

import numpy as np
import pytest

from metrics.camera import intrinsics
from metrics.camera import rotation_ate
from metrics.camera import two_view_rotation as tvr
from tools.fixtures import camera_path
from tools.fixtures import scene


def _aligned_errors(gt_rotations, est_rotations):
    """Per-frame geodesic errors after the official frame-0 alignment."""
    align = gt_rotations[0] @ est_rotations[0].T
    return np.array([rotation_ate.geodesic_deg(align @ e, g)
                     for e, g in zip(est_rotations, gt_rotations)])


def _yaw_deg(rotation):
    """Yaw of a rotation about the camera y axis (as camera_path.rotation_y)."""
    return math.degrees(math.atan2(rotation[0, 2], rotation[0, 0]))


@pytest.mark.parametrize("seed", [0, 1])
def test_fixture_pan_at_240x320(seed):
    frames, c2w, intr, _, _ = scene.render_clip(33, 240, 320, seed)
    # K rescaled from the fixture's GT size (160x120) to the frames' size.
    gt_k = intrinsics.camera_matrix(*camera_path.intrinsics_for(120, 160, 60.0))
    k = intrinsics.rescale(gt_k, (160, 120), (320, 240))
    np.testing.assert_allclose(k, intrinsics.camera_matrix(*intr[0]))
    estimate = tvr.estimate_rotations(frames, k)
    assert estimate.rotations.shape == (33, 3, 3)
    np.testing.assert_array_equal(estimate.rotations[0], np.eye(3))
    assert estimate.failures == 0 and len(estimate.methods) == 32
    errors = _aligned_errors(c2w[:, :3, :3], estimate.rotations)
    assert errors.max() < 3.0, errors.round(2)
    # The peak yaw (frame 16, exactly 40 degrees) is recovered, sign included.
    assert abs(_yaw_deg(estimate.rotations[16]) - 40.0) < 3.0
    score = rotation_ate.rotation_ate_score(c2w, estimate.rotations)
    assert score.score > 0.8, score


@pytest.mark.parametrize("seed", [0, 1])
def test_pure_rotation_pan_at_generated_size(seed):
    frames, c2w, intr, _, _ = scene.render_clip(33, 96, 128, seed,
                                                translation=(0.0, 0.0, 0.0))
    estimate = tvr.estimate_rotations(frames,
                                      intrinsics.camera_matrix(*intr[0]))
    assert set(estimate.methods) == {tvr.METHOD_HOMOGRAPHY}
    errors = _aligned_errors(c2w[:, :3, :3], estimate.rotations)
    assert errors.max() < 1.5, errors.round(2)
    score = rotation_ate.rotation_ate_score(c2w, estimate.rotations)
    assert score.score > 0.93, score


def test_one_way_pan_scores_against_its_total_rotation():
    n = 25
    c2w = np.tile(np.eye(4), (n, 1, 1))
    c2w[:, :3, :3] = [camera_path.rotation_y(y)
                      for y in np.deg2rad(np.linspace(0.0, 30.0, n))]
    intr = np.tile(camera_path.intrinsics_for(96, 128, 60.0), (n, 1))
    frames, _ = scene.render_frames(scene.make_scene(1), c2w, intr, 96, 128)
    estimate = tvr.estimate_rotations(frames,
                                      intrinsics.camera_matrix(*intr[0]))
    errors = _aligned_errors(c2w[:, :3, :3], estimate.rotations)
    assert errors.max() < 2.0, errors.round(2)
    score = rotation_ate.rotation_ate_score(c2w, estimate.rotations)
    assert score.total_gt_rot_deg == pytest.approx(30.0)
    assert score.score > 0.95, score


def test_textureless_clip_counts_failures():
    frames = np.full((5, 96, 128, 3), 128, np.uint8)
    estimate = tvr.estimate_rotations(
        frames, intrinsics.camera_matrix(110.0, 110.0, 64.0, 48.0))
    assert estimate.failures == 4
    assert estimate.methods == (tvr.METHOD_FAILED,) * 4
    np.testing.assert_array_equal(estimate.rotations,
                                  np.tile(np.eye(3), (5, 1, 1)))


def _project(k, points):
    uv = points @ k.T
    return (uv[:, :2] / uv[:, 2:]).astype(np.float32)


def _scene_points(seed, count=80):
    rng = np.random.default_rng(seed)
    return np.column_stack([rng.uniform(-3, 3, count), rng.uniform(-2, 2, count),
                            rng.uniform(2, 10, count)])


_K = intrinsics.camera_matrix(500.0, 500.0, 320.0, 240.0)


def test_pure_rotation_points_use_the_rotation_only_model():
    # X_b = R X_a: the returned rotation maps camera-a to camera-b axes.
    tilt = math.radians(2.0)
    rotation = camera_path.rotation_y(math.radians(4.0)) @ np.array(
        [[1, 0, 0], [0, math.cos(tilt), -math.sin(tilt)],
         [0, math.sin(tilt), math.cos(tilt)]])
    points = _scene_points(0)
    r_ab, method = tvr.relative_rotation(
        _project(_K, points), _project(_K, points @ rotation.T), _K)
    assert method == tvr.METHOD_HOMOGRAPHY
    assert rotation_ate.geodesic_deg(r_ab, rotation) < 0.01


def test_large_baseline_points_use_the_essential_matrix():
    rotation = camera_path.rotation_y(math.radians(-6.0))
    points = _scene_points(1)
    moved = points @ rotation.T + np.array([1.0, 0.0, 0.3])
    r_ab, method = tvr.relative_rotation(
        _project(_K, points), _project(_K, moved), _K)
    assert method == tvr.METHOD_ESSENTIAL
    assert rotation_ate.geodesic_deg(r_ab, rotation) < 0.05


def test_too_few_matches_fail():
    points = _scene_points(2, count=tvr.MIN_MATCHES - 1)
    assert tvr.relative_rotation(_project(_K, points), _project(_K, points),
                                 _K) == (None, tvr.METHOD_FAILED)


def test_nearest_rotation_and_bearing_fit():
    rotation = camera_path.rotation_y(0.3) @ np.array(
        [[1, 0, 0], [0, 0.6, -0.8], [0, 0.8, 0.6]])
    np.testing.assert_allclose(tvr.nearest_rotation(-2.5 * rotation),
                               rotation, atol=1e-12)
    points = _scene_points(3)
    fitted = tvr.rotation_from_bearings(
        _K, _project(_K, points), _project(_K, points @ rotation.T))
    assert rotation_ate.geodesic_deg(fitted, rotation) < 1e-3


@pytest.mark.parametrize("frames,k", [
    (np.zeros((2, 8, 8, 3), np.float32), _K),
    (np.zeros((2, 8, 8), np.uint8), _K),
    ([np.zeros((8, 8, 3), np.uint8), np.zeros((8, 9, 3), np.uint8)], _K),
    (np.zeros((0, 8, 8, 3), np.uint8), _K),
    (np.zeros((2, 8, 8, 3), np.uint8), np.zeros((3, 3))),
])
def test_bad_inputs_raise_value_error(frames, k):
    with pytest.raises(ValueError):
        tvr.estimate_rotations(frames, k)


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
