"""Tests for metrics.camera.gt_poses: UE5 CSV conversion, lookup, resampling."""

import math

import numpy as np
import pytest

from metrics.camera import gt_poses

_C30, _S30 = math.sqrt(3) / 2, 0.5  # cos and sin of pi/6.
_C45 = math.sqrt(2) / 2  # cos and sin of pi/4.
_HEADER = "frame,loc_x,loc_y,loc_z,rot_x,rot_y,rot_z,fx,fy,cx,cy\n"


def _write_csv(path, rows):
    """rows: (loc_x, loc_y, loc_z, rot_x, rot_y, rot_z) tuples."""
    lines = [_HEADER] + [
        f"{i}," + ",".join(repr(float(v)) for v in row) + ",500,500,320,240\n"
        for i, row in enumerate(rows)]
    path.write_text("".join(lines))
    return path


def _poses(n):
    """n distinct poses; pose i has translation (i, 0, 0)."""
    poses = np.tile(np.eye(4), (n, 1, 1))
    poses[:, 0, 3] = np.arange(n)
    return poses


# Worked UE5 examples. The official code feeds the CSV angles straight into
# cos/sin (radians) and builds R = Rz_LH(rot_z) @ Ry_LH(rot_y) @ Rx_LH(rot_x)
# with Rx_LH(a) = [[1,0,0],[0,c,s],[0,-s,c]], Ry_LH(a) = [[c,0,-s],[0,1,0],
# [s,0,c]], Rz_LH(a) = [[c,s,0],[-s,c,0],[0,0,1]], then c2w = [R|t] @
# diag(1,-1,-1,1), which negates the 2nd and 3rd columns of R.
_UE5_CASES = [
    # All zero: R = I, so c2w = diag(1, -1, -1, 1).
    ((0, 0, 0, 0, 0, 0),
     [[1, 0, 0, 0], [0, -1, 0, 0], [0, 0, -1, 0]]),
    # Yaw rot_z = pi/2: Rz_LH = [[0,1,0],[-1,0,0],[0,0,1]]; columns 2 and 3
    # negated -> [[0,-1,0],[-1,0,0],[0,0,-1]]; t = (100, 200, 300).
    ((100, 200, 300, 0, 0, math.pi / 2),
     [[0, -1, 0, 100], [-1, 0, 0, 200], [0, 0, -1, 300]]),
    # Pitch rot_y = pi/6: Ry_LH = [[c,0,-s],[0,1,0],[s,0,c]] ->
    # [[c,0,s],[0,-1,0],[s,0,-c]] with c = 0.8660, s = 0.5.
    ((0, 0, 0, 0, math.pi / 6, 0),
     [[_C30, 0, _S30, 0], [0, -1, 0, 0], [_S30, 0, -_C30, 0]]),
    # Roll rot_x = pi/4: Rx_LH = [[1,0,0],[0,c,s],[0,-s,c]] ->
    # [[1,0,0],[0,-c,-s],[0,s,-c]] with c = s = 0.7071.
    ((-5, 0, 2.5, math.pi / 4, 0, 0),
     [[1, 0, 0, -5], [0, -_C45, -_C45, 0], [0, _C45, -_C45, 2.5]]),
    # Yaw pi/2 then pitch pi/6 (order matters): Rz_LH @ Ry_LH takes rows
    # (Ry row 1, -Ry row 0, Ry row 2) = [[0,1,0],[-c,0,s],[s,0,c]] ->
    # [[0,-1,0],[-c,0,-s],[s,0,-c]]. (Ry_LH @ Rz_LH would start [0,c,-s].)
    ((1, 2, 3, 0, math.pi / 6, math.pi / 2),
     [[0, -1, 0, 1], [-_C30, 0, -_S30, 2], [_S30, 0, -_C30, 3]]),
]


def test_ue5_csv_matches_hand_derived_matrices(tmp_path):
    path = _write_csv(tmp_path / "camera_full5.csv",
                      [row for row, _ in _UE5_CASES])
    poses = gt_poses.ue5_csv_to_c2w(path)
    assert poses.shape == (len(_UE5_CASES), 4, 4)
    assert poses.dtype == np.float64
    for pose, (_, expected) in zip(poses, _UE5_CASES):
        want = np.vstack([np.array(expected, float), [0, 0, 0, 1]])
        np.testing.assert_allclose(pose, want, atol=1e-12)


def test_ue5_angles_are_used_as_radians_like_the_official_code(tmp_path):
    # A CSV value of 90 is 90 radians to the official code, not 90 degrees:
    # Rz_LH(90)[0, 0] = cos(90) = -0.4481 and c2w[0, 0] keeps it.
    path = _write_csv(tmp_path / "camera_full1.csv", [(0, 0, 0, 0, 0, 90)])
    pose = gt_poses.ue5_csv_to_c2w(path)[0]
    assert pose[0, 0] == pytest.approx(math.cos(90.0)) == pytest.approx(
        -0.44807361)
    assert pose[0, 1] == pytest.approx(-math.sin(90.0))


def test_ue5_csv_errors_name_the_file(tmp_path):
    missing_column = tmp_path / "a.csv"
    missing_column.write_text("loc_x,loc_y,loc_z,rot_x,rot_y\n0,0,0,0,0\n")
    with pytest.raises(ValueError, match=r"a\.csv.*rot_z"):
        gt_poses.ue5_csv_to_c2w(missing_column)
    bad_value = tmp_path / "b.csv"
    bad_value.write_text(_HEADER + "0,1,2,x,0,0,0,1,1,1,1\n")
    with pytest.raises(ValueError, match=r"b\.csv.*row 1"):
        gt_poses.ue5_csv_to_c2w(bad_value)
    empty = tmp_path / "c.csv"
    empty.write_text(_HEADER)
    with pytest.raises(ValueError, match=r"c\.csv.*no data rows"):
        gt_poses.ue5_csv_to_c2w(empty)
    with pytest.raises(FileNotFoundError, match="nope.csv"):
        gt_poses.ue5_csv_to_c2w(tmp_path / "nope.csv")


@pytest.mark.parametrize("n_gt,n,indices", [
    (5, 3, [0, 2, 4]),              # i * 4 / 2.
    (10, 4, [0, 3, 6, 9]),          # i * 9 / 3.
    (6, 3, [0, 2, 5]),              # i * 5 / 2 = 2.5 -> 2 (half to even).
    (4, 3, [0, 2, 3]),              # i * 3 / 2 = 1.5 -> 2 (half to even).
    (3, 5, [0, 0, 1, 2, 2]),        # i * 2 / 4: 0.5 -> 0, 1.5 -> 2.
])
def test_resample_index_rule(n_gt, n, indices):
    resampled = gt_poses.resample_poses(_poses(n_gt), n)
    assert resampled[:, 0, 3].tolist() == indices


def test_resample_same_length_is_unchanged_and_empty_raises():
    poses = _poses(4)
    assert gt_poses.resample_poses(poses, 4) is poses
    with pytest.raises(ValueError):
        gt_poses.resample_poses(np.zeros((0, 4, 4)), 3)


def test_load_npy_and_npz(tmp_path):
    np.save(tmp_path / "poses.npy", _poses(3).astype(np.float32))
    loaded = gt_poses.load_pose_file(tmp_path / "poses.npy")
    assert loaded.dtype == np.float64
    np.testing.assert_array_equal(loaded, _poses(3))
    np.savez(tmp_path / "001_mapanything.npz", cam_c2w=_poses(4),
             intrinsic=np.eye(3))
    np.testing.assert_array_equal(
        gt_poses.load_pose_file(tmp_path / "001_mapanything.npz"), _poses(4))


def test_load_errors_name_the_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.npy"):
        gt_poses.load_pose_file(tmp_path / "missing.npy")
    np.save(tmp_path / "flat.npy", np.zeros((3, 3, 4)))
    with pytest.raises(ValueError, match=r"flat\.npy.*\(N, 4, 4\).*\(3, 3, 4\)"):
        gt_poses.load_pose_file(tmp_path / "flat.npy")
    np.savez(tmp_path / "nokey.npz", poses=_poses(2))
    with pytest.raises(ValueError, match=r"nokey\.npz.*cam_c2w.*poses"):
        gt_poses.load_pose_file(tmp_path / "nokey.npz")
    (tmp_path / "junk.npy").write_bytes(b"not numpy")
    with pytest.raises(ValueError, match=r"junk\.npy"):
        gt_poses.load_pose_file(tmp_path / "junk.npy")
    (tmp_path / "poses.txt").write_text("1 2 3")
    with pytest.raises(ValueError, match=r"poses\.txt"):
        gt_poses.load_pose_file(tmp_path / "poses.txt")
    nan = _poses(2)
    nan[1, 0, 0] = np.nan
    np.save(tmp_path / "nan.npy", nan)
    with pytest.raises(ValueError, match=r"nan\.npy"):
        gt_poses.load_pose_file(tmp_path / "nan.npy")


def test_synthetic_lookup_order(tmp_path):
    clip = tmp_path / "Synthetic_processed" / "CityPark" / "CityPark_005"
    (clip / "5").mkdir(parents=True)
    _write_csv(clip / "camera_full5.csv", [(7, 0, 0, 0, 0, 0)] * 3)
    from_csv = gt_poses.load_synthetic_gt_poses(clip, 3)
    assert from_csv[:, 0, 3].tolist() == [7, 7, 7]
    np.save(clip / "poses.npy", _poses(2) + 100)
    assert gt_poses.load_synthetic_gt_poses(clip, 2)[1, 0, 3] == 101
    np.save(clip / "5" / "poses.npy", _poses(5))
    assert gt_poses.load_synthetic_gt_poses(clip, 3)[:, 0, 3].tolist() == [
        0, 2, 4]


def test_synthetic_missing_names_every_path(tmp_path):
    clip = tmp_path / "Barnyard_012"
    clip.mkdir()
    with pytest.raises(FileNotFoundError) as error:
        gt_poses.load_synthetic_gt_poses(clip, 3)
    for path in (clip / "12" / "poses.npy", clip / "poses.npy",
                 clip / "camera_full12.csv"):
        assert str(path) in str(error.value)
    with pytest.raises(ValueError, match="no_number"):
        gt_poses.load_synthetic_gt_poses(tmp_path / "no_number", 3)


def test_real_lookup_order_and_missing(tmp_path):
    raw = tmp_path / "Real_Raw" / "007" / "raw" / "007_mapanything.npz"
    legacy = (tmp_path / "mapanything" / "outputs" / "real" /
              "007_mapanything.npz")
    with pytest.raises(FileNotFoundError) as error:
        gt_poses.load_real_gt_poses(tmp_path, "007", 3)
    assert str(raw) in str(error.value) and str(legacy) in str(error.value)
    legacy.parent.mkdir(parents=True)
    np.savez(legacy, cam_c2w=_poses(2) + 50)
    assert gt_poses.load_real_gt_poses(tmp_path, "007", 2)[0, 0, 3] == 50
    raw.parent.mkdir(parents=True)
    np.savez(raw, cam_c2w=_poses(6))
    assert gt_poses.load_real_gt_poses(tmp_path, "007", 3)[:, 0, 3].tolist() == [
        0, 2, 5]


def test_clip_number():
    assert gt_poses.clip_number("Barnyard_007") == 7
    assert gt_poses.clip_number("Japanese_Street_010") == 10
    with pytest.raises(ValueError):
        gt_poses.clip_number("Barnyard")


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
