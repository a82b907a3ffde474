"""Tests for metrics.camera.intrinsics: loading K and rescaling it."""

import numpy as np
import pytest

from metrics.camera import intrinsics

_K = np.array([[500.0, 0.0, 320.0], [0.0, 400.0, 240.0], [0.0, 0.0, 1.0]])


def test_npy_rows_use_the_first_row(tmp_path):
    rows = np.array([[500.0, 400.0, 320.0, 240.0], [1.0, 2.0, 3.0, 4.0]])
    np.save(tmp_path / "intrinsics.npy", rows)
    np.testing.assert_array_equal(
        intrinsics.load_intrinsics(tmp_path / "intrinsics.npy"), _K)
    np.save(tmp_path / "flat.npy", rows[0])
    np.testing.assert_array_equal(
        intrinsics.load_intrinsics(tmp_path / "flat.npy"), _K)
    np.save(tmp_path / "k.npy", _K)
    np.testing.assert_array_equal(
        intrinsics.load_intrinsics(tmp_path / "k.npy"), _K)


def test_npz_and_csv(tmp_path):
    np.savez(tmp_path / "001_mapanything.npz", intrinsic=_K,
             cam_c2w=np.tile(np.eye(4), (2, 1, 1)))
    np.testing.assert_array_equal(
        intrinsics.load_intrinsics(tmp_path / "001_mapanything.npz"), _K)
    (tmp_path / "camera_full1.csv").write_text(
        "frame,rot_x,fx,fy,cx,cy\n0,0,500,400,320,240\n1,0,9,9,9,9\n")
    np.testing.assert_array_equal(
        intrinsics.load_intrinsics(tmp_path / "camera_full1.csv"), _K)


def test_errors_name_the_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="none.npy"):
        intrinsics.load_intrinsics(tmp_path / "none.npy")
    np.save(tmp_path / "bad_shape.npy", np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"bad_shape\.npy.*\(2, 3\)"):
        intrinsics.load_intrinsics(tmp_path / "bad_shape.npy")
    np.save(tmp_path / "zero_focal.npy", np.array([0.0, 1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match=r"zero_focal\.npy"):
        intrinsics.load_intrinsics(tmp_path / "zero_focal.npy")
    np.savez(tmp_path / "nokey.npz", K=_K)
    with pytest.raises(ValueError, match=r"nokey\.npz.*intrinsic"):
        intrinsics.load_intrinsics(tmp_path / "nokey.npz")
    (tmp_path / "nocols.csv").write_text("fx,fy\n1,2\n")
    with pytest.raises(ValueError, match=r"nocols\.csv.*cx"):
        intrinsics.load_intrinsics(tmp_path / "nocols.csv")
    (tmp_path / "k.json").write_text("{}")
    with pytest.raises(ValueError, match=r"k\.json"):
        intrinsics.load_intrinsics(tmp_path / "k.json")


def test_nan_intrinsics_and_unreadable_files_name_the_path(tmp_path):
    np.save(tmp_path / "nan.npy", np.array([[np.nan, 400.0, 320.0, 240.0]]))
    with pytest.raises(ValueError, match=r"nan\.npy: expected a pinhole matrix"):
        intrinsics.load_intrinsics(tmp_path / "nan.npy")
    np.save(tmp_path / "obj.npy", np.array([{"fx": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(ValueError) as e:
        intrinsics.load_intrinsics(tmp_path / "obj.npy")
    assert str(e.value) == (f"{tmp_path / 'obj.npy'}: not a readable numpy file (it holds "
                            "pickled Python objects, not a numeric array)")
    (tmp_path / "cut.npz").write_bytes(b"PK\x03\x04 truncated")
    with pytest.raises(ValueError, match=r"cut\.npz: not a readable numpy file \(BadZipFile"):
        intrinsics.load_intrinsics(tmp_path / "cut.npz")


def test_rescale_by_width_and_height_ratios():
    # 1280x720 -> 640x360: every parameter halves.
    np.testing.assert_allclose(
        intrinsics.rescale(_K, (1280, 720), (640, 360)),
        [[250, 0, 160], [0, 200, 120], [0, 0, 1]])
    # Anisotropic: width x 0.5, height x 1.25.
    np.testing.assert_allclose(
        intrinsics.rescale(_K, (640, 480), (320, 600)),
        [[250, 0, 160], [0, 500, 300], [0, 0, 1]])
    with pytest.raises(ValueError):
        intrinsics.rescale(_K, (0, 480), (320, 600))


@pytest.mark.parametrize("text,size", [
    ("1280x720", (1280, 720)), (" 160X120 ", (160, 120))])
def test_parse_size(text, size):
    assert intrinsics.parse_size(text) == size


@pytest.mark.parametrize("text", ["1280", "0x10", "-1x5", "axb", "12x"])
def test_parse_size_rejects(text):
    with pytest.raises(ValueError, match="WxH"):
        intrinsics.parse_size(text)


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
