"""ORS reads a frame folder's files through the shared frame reader: cv2.imread's
pixels, None where cv2.imread gives None (counted, as compute_ors.py counts it), and a
FrameInputError naming a file OpenCV refuses (instead of cv2.error escaping)."""

import cv2
import numpy as np
import pytest

from benchmarks.memobench.ors import object_revisit
from metrics.testing import damaged_png
from metrics.video import frames as frames_lib


def _folder(tmp_path, suffix):
    rng = np.random.default_rng(0)
    folder = tmp_path / "frames"
    folder.mkdir()
    for i in range(3):
        image = rng.integers(0, 256, (12, 16, 3), dtype=np.uint8)
        image[..., 0] = 0  # blue 0: a BGR/RGB swap would show (in a PNG)
        cv2.imwrite(str(folder / f"{i:05d}{suffix}"), image)
    return folder


@pytest.mark.parametrize("suffix", [".png", ".jpg"])
def test_frames_are_cv2_imread_pixels_in_bgr(tmp_path, suffix):
    folder = _folder(tmp_path, suffix)
    clip = object_revisit.open_clip(folder)
    assert clip.num_frames == 3 and clip.paths == tuple(sorted(folder.iterdir()))
    for i, path in enumerate(clip.paths):
        expected = cv2.imread(str(path), cv2.IMREAD_COLOR)
        got = clip.read(i)
        assert got.dtype == np.uint8 and np.array_equal(got, expected)
        if suffix == ".png":  # lossless: the colour order shows
            assert not got[..., 0].any() and got[..., 1:].any()


def test_a_file_that_is_not_an_image_reads_as_none(tmp_path):
    folder = _folder(tmp_path, ".png")
    (folder / "00001.png").write_bytes(b"not a png")
    clip = object_revisit.open_clip(folder)
    assert clip.read(1) is None and clip.read(2) is not None


def test_a_png_whose_header_claims_too_many_pixels_is_named(tmp_path):
    folder = _folder(tmp_path, ".png")
    huge = folder / "00002.png"
    huge.write_bytes(damaged_png.png_claiming(100000, 100000))
    clip = object_revisit.open_clip(folder)
    with pytest.raises(frames_lib.FrameInputError) as raised:
        clip.read(2)
    assert str(raised.value).startswith(f"{huge}: expected a readable PNG/JPEG image")
    assert "a PNG whose header claims 100000x100000 pixels" in str(raised.value)
