"""camera_control.py: known answers, the pinned calib quirk, and the official run's numbers
(calibration/camera_error_official.json, made by calibration/camera_error_official_run.py)."""

import json
import pathlib

import numpy as np
import pytest

from benchmarks.worldscore import camera_control
from benchmarks.worldscore import camera_control_cases

_OFFICIAL = pathlib.Path(__file__).parent / "calibration" / "camera_error_official.json"
_FX = np.diag([-1.0, 1.0, 1.0, 1.0])
_FZ = np.diag([1.0, 1.0, -1.0, 1.0])


@pytest.fixture(scope="module")
def official():
    return {c["name"]: c for c in json.loads(_OFFICIAL.read_text())["cases"]}


@pytest.mark.parametrize("case", camera_control_cases.cases(), ids=lambda c: c["name"])
def test_equals_the_official_camera_error(case, official):
    want = official[case["name"]]
    got = camera_control.camera_error_from_droid(case["trajectory"], case["camera_data"])
    assert got.rotation_error_deg == pytest.approx(want["rotation_error_deg"], abs=1e-6)
    assert got.translation_error == pytest.approx(want["translation_error"], abs=1e-6)
    frame, intrinsics = camera_control.droid_input(
        np.zeros((case["height"], case["width"], 3), np.uint8))
    assert [1, 3, *frame.shape[:2]] == want["image_shape"]
    assert intrinsics.tolist() == want["intrinsics"]  # float32, bit for bit


def test_pure_pan_of_30_degrees_against_a_static_prediction():
    case = camera_control_cases.cases()[0]  # GT pans 0..30 deg, DROID never moves
    pred = camera_control.droid_to_worldscore_c2w(
        camera_control.quaternion_pose_matrices(case["trajectory"]))
    ref = camera_control.reference_c2w(case["camera_data"])
    per_frame = np.degrees(np.arccos(np.clip(
        (np.einsum("nij,nij->n", pred[:, :3, :3], ref[:, :3, :3]) - 1) / 2, -1, 1)))
    assert per_frame[-1] == pytest.approx(30.0, abs=1e-4)
    got = camera_control.camera_error(pred, ref)
    assert got.rotation_error_deg == pytest.approx(15.0, abs=1e-4)  # mean of 0..30
    assert got.translation_error == 0.0
    assert got.score_normalized == pytest.approx(np.sqrt(1 - got.rotation_error_deg / 15), abs=1e-9)


def test_a_trajectory_scaled_by_a_known_factor():
    rng = np.random.default_rng(3)
    ref = np.tile(np.eye(4), (6, 1, 1))
    ref[:, :3, 3] = np.cumsum(rng.normal(size=(6, 3)), axis=0)
    pred = ref.copy()
    pred[:, :3, 3] /= 4.0
    got = camera_control.camera_error(pred, ref)
    assert got.scale.scale == pytest.approx(4.0, abs=1e-6)
    assert got.translation_error < 1e-5 and got.rotation_error_deg == 0.0
    assert got.score_normalized == pytest.approx(1.0, abs=1e-4)


def test_the_fixed_calib_is_scaled_not_recentred():
    # Official quirk: calib (500, 500, 256, 256) whatever the frame; for 720x480 the
    # principal point lands at 222.9 px, not the centre (312, 208) of the 624x416 frame.
    frame, k = camera_control.droid_input(np.zeros((480, 720, 3), np.uint8))
    assert frame.shape == (416, 624, 3)
    np.testing.assert_array_equal(k, np.float32([435.41666, 435.41666, 222.93333, 222.93333]))
    assert abs(k[2] - frame.shape[1] / 2) > 80


def test_pose_conversion_is_flip_x_then_flip_z():
    rng = np.random.default_rng(1)
    traj = np.array([camera_control_cases.droid_pose_of(
        np.block([[camera_control_cases.axis_angle_matrix(rng.normal(size=3), 40.0),
                   rng.normal(size=(3, 1))], [np.zeros((1, 3)), np.ones((1, 1))]]))
        for _ in range(3)], np.float32)
    mats = camera_control.quaternion_pose_matrices(traj).double().numpy()
    out = camera_control.droid_to_worldscore_c2w(camera_control.quaternion_pose_matrices(traj))
    np.testing.assert_allclose(out, _FX @ mats @ _FZ, atol=1e-5)
    # identity (DROID's first keyframe) is the generated cameras' first pose diag(-1,1,-1,1)
    ident = camera_control.quaternion_pose_matrices(np.array([[0, 0, 0, 0, 0, 0, 1.0]]))
    np.testing.assert_array_equal(camera_control.droid_to_worldscore_c2w(ident)[0],
                                  camera_control_cases.FIRST_CAMERA)


def test_quaternion_order_is_xyzw():
    from scipy.spatial.transform import Rotation  # pylint: disable=import-outside-toplevel
    q = Rotation.from_rotvec([0.3, -0.5, 0.8]).as_quat()  # scipy's order is (x, y, z, w)
    mats = camera_control.quaternion_pose_matrices(np.concatenate([[1, 2, 3], q])[None])
    np.testing.assert_allclose(mats[0, :3, :3].numpy(), Rotation.from_quat(q).as_matrix(),
                               atol=1e-6)
    assert mats[0, :3, 3].tolist() == [1, 2, 3]


def test_reference_divides_by_scale_after_float32():
    data = {"scale": 2.0, "cameras_interp": [np.eye(4).tolist(), np.eye(4).tolist()]}
    data["cameras_interp"][1][0][3] = 0.1
    ref = camera_control.reference_c2w(data)
    assert ref[1, 0, 3] == float(np.float32(0.1)) / 2.0


def test_bad_input_names_the_file():
    with pytest.raises(ValueError, match="x/camera_data.json: expected a 'cameras_interp'"):
        camera_control.reference_c2w({}, "x/camera_data.json")
    with pytest.raises(ValueError, match="needs all three equal"):
        camera_control.check_frame_count({"cameras_interp": [0] * 3}, 3, 4, "x")
    with pytest.raises(ValueError, match=r"shape \(N, 7\)"):
        camera_control.quaternion_pose_matrices(np.zeros((2, 6)))


def test_image_stream_yields_the_official_tuples():
    frames = [np.full((360, 640, 3), i, np.uint8) for i in range(3)]
    out = list(camera_control.image_stream(frames))
    assert [t for t, _, _ in out] == [0, 1, 2]
    _, image, intrinsics = out[2]
    assert image.shape == (1, 3, 384, 680) and image.dtype.is_floating_point is False
    assert int(image.max()) == 2 and str(intrinsics.dtype) == "torch.float32"
    assert [t for t, _, _ in camera_control.image_stream(frames, stride=2)] == [0, 1]
