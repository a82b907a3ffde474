"""Tests of trajectory_error.py and slam_input.py: known answers and hand arithmetic."""

import numpy as np
import pytest

from metrics.camera import slam_input
from metrics.camera import trajectory_error


def _rot_y(deg):
    a = np.radians(deg)
    return np.array([[np.cos(a), 0, np.sin(a)], [0, 1, 0], [-np.sin(a), 0, np.cos(a)]])


def test_pure_pan_against_static_gives_the_pan_angle():
    ref = np.stack([_rot_y(d) for d in (0.0, 10.0, 30.0)])
    static = np.stack([np.eye(3)] * 3)
    np.testing.assert_allclose(trajectory_error.geodesic_errors_deg(static, ref),
                               [0.0, 10.0, 30.0], atol=1e-9)


def test_geodesic_clamps_rounding_above_one():
    almost = np.eye(3) * (1 + 1e-12)  # trace slightly above 3: arccos would be NaN unclamped
    out = trajectory_error.geodesic_errors_deg(almost[None], np.eye(3)[None])
    assert out.tolist() == [0.0]


def test_scale_fit_recovers_a_known_factor():
    rng = np.random.default_rng(0)
    pred = rng.normal(size=(9, 3))
    fit = trajectory_error.fit_translation_scale(2.5 * pred, pred)
    assert not fit.fallback
    assert fit.scale == pytest.approx(2.5, abs=1e-6)
    assert trajectory_error.translation_errors(2.5 * pred, pred, fit.scale).max() < 1e-5


def test_scale_fit_is_the_l1_of_norms_minimiser_not_least_squares():
    # One outlier: least squares would move c; the sum of norms keeps c at the majority's 1.
    pred = np.array([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0], [1.0, 1.0, 0]])
    ref = pred.copy()
    ref[3] *= 10
    fit = trajectory_error.fit_translation_scale(ref, pred)
    assert fit.scale == pytest.approx(1.0, abs=1e-5)


def test_solver_failure_uses_the_official_ratio_of_mean_norms(monkeypatch):
    import cvxpy  # pylint: disable=import-outside-toplevel

    def fail(self, *args, **kwargs):
        raise cvxpy.error.SolverError("forced")
    monkeypatch.setattr(cvxpy.Problem, "solve", fail)
    ref = np.array([[2.0, 0, 0], [0, 4.0, 0]])
    pred = np.array([[1.0, 0, 0], [0, 1.0, 0]])
    fit = trajectory_error.fit_translation_scale(ref, pred)
    assert fit.fallback and "forced" in fit.reason
    assert fit.scale == pytest.approx(3.0 / (1.0 + 1e-8), rel=1e-15)
    # a zero ratio keeps the predictions unscaled (c = 1)
    assert trajectory_error.fit_translation_scale(np.zeros((2, 3)), pred).scale == 1.0


def test_bad_shapes_raise():
    with pytest.raises(ValueError, match="r_pred must have shape"):
        trajectory_error.geodesic_errors_deg(np.eye(3), np.eye(3)[None])
    with pytest.raises(ValueError, match="t_ref has 2 translations, t_pred 1"):
        trajectory_error.fit_translation_scale(np.zeros((2, 3)), np.zeros((1, 3)))


@pytest.mark.parametrize("size,resized,cropped", [
    ((512, 512), (512, 512), (512, 512)),
    ((480, 720), (418, 627), (416, 624)),
    ((360, 640), (384, 682), (384, 680)),
])
def test_area_resize_and_crop(size, resized, cropped):
    assert slam_input.resized_shape(*size) == resized
    assert slam_input.cropped_shape(*size) == cropped
    frame = np.zeros(size + (3,), np.uint8)
    assert slam_input.prepare_frame(frame).shape == cropped + (3,)


def test_intrinsics_scale_with_the_resize_not_the_crop():
    k = slam_input.scaled_intrinsics((500.0, 500.0, 256.0, 256.0), 480, 720)
    assert k.dtype == np.float32
    np.testing.assert_array_equal(k, np.float32([500, 500, 256, 256]) * np.float32(627 / 720))
    with pytest.raises(ValueError, match="calib must be"):
        slam_input.scaled_intrinsics((1.0, 2.0), 10, 10)
    with pytest.raises(ValueError, match="uint8 frame"):
        slam_input.prepare_frame(np.zeros((8, 8, 3), np.float32))
