"""Tests for metrics.video.frames."""

import pickle

import cv2
import numpy as np
import pytest

from metrics.video import frames
from metrics.video.frames import FrameInputError
from metrics.video.resize import resize_max_side


def _write_frames(folder, names, shape=(24, 32, 3), seed=0):
    """Writes a random image per name; returns the images by name."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    images = {}
    for name in names:
        image = rng.integers(0, 256, shape, dtype=np.uint8)
        assert cv2.imwrite(str(folder / name), image)
        images[name] = image
    return images


def test_error_message_and_attributes():
    err = FrameInputError(
        "frames/", "a folder of .png/.jpg/.jpeg frames", "no image files"
    )
    assert str(err) == (
        "frames/: expected a folder of .png/.jpg/.jpeg frames, "
        "found no image files"
    )
    assert isinstance(err, ValueError)
    assert (err.path, err.found) == ("frames/", "no image files")
    assert str(FrameInputError("x.png", "an image")) == "x.png: expected an image"
    copy = pickle.loads(pickle.dumps(err))
    assert str(copy) == str(err) and copy.expected == err.expected


def test_numeric_order_uses_last_digit_run(tmp_path):
    names = [f"NewLevelSequence5.{i:04d}.jpg" for i in (12, 3, 7, 0)]
    _write_frames(tmp_path, names)
    (tmp_path / "notes.txt").write_text("not a frame 99")
    (tmp_path / "sub").mkdir()
    got = [p.name for p in frames.list_frame_files(tmp_path)]
    assert got == [f"NewLevelSequence5.{i:04d}.jpg" for i in (0, 3, 7, 12)]


def test_consistent_padding_accepted(tmp_path):
    _write_frames(tmp_path / "a", [f"{i}.png" for i in range(1, 10)])
    got = [p.name for p in frames.list_frame_files(tmp_path / "a")]
    assert got == [f"{i}.png" for i in range(1, 10)]
    _write_frames(tmp_path / "b", [f"{i:05d}.PNG" for i in range(120, 0, -1)])
    got = [p.name for p in frames.list_frame_files(tmp_path / "b")]
    assert got == [f"{i:05d}.PNG" for i in range(1, 121)]
    assert got == sorted(got)


def test_unpadded_numbers_are_listed_by_number_not_as_strings(tmp_path):
    """No lexicographic rule here: ordering rules beyond the number are a benchmark's
    (MemoBench's lives in benchmarks/memobench/frame_order.py)."""
    images = _write_frames(tmp_path, [f"frames_{i}.png" for i in range(1, 131)])
    got = frames.list_frame_files(tmp_path)
    assert [p.name for p in got] == [f"frames_{i}.png" for i in range(1, 131)]
    assert [p.name for p in got] != sorted(p.name for p in got)  # frames_10 < frames_9
    stacked = frames.read_frame_folder(tmp_path, workers=2)
    assert all(np.array_equal(stacked[i - 1], images[f"frames_{i}.png"]) for i in (1, 9, 10, 130))
    _write_frames(tmp_path / "b", ["1.png", "2.png", "10.png"])
    assert [p.name for p in frames.list_frame_files(tmp_path / "b")] == ["1.png", "2.png", "10.png"]


def test_scan_reports_numbers_gaps_duplicates_and_names_that_are_not_frames(tmp_path):
    _write_frames(tmp_path, ["00001.png", "00002.png", "00005.png", "00007.jpg", "7.png",
                             "00005 (1).png", "cover.jpg"])
    (tmp_path / "notes.txt").write_text("ignored: not an image")
    listing = frames.scan_frame_folder(tmp_path)
    assert listing.numbers == (1, 2, 5, 7)
    assert [p.name for p in listing.frames] == ["00001.png", "00002.png", "00005.png", "00007.jpg"]
    assert listing.gaps == (3, 4, 6)
    assert listing.missing_names() == ("00003.png", "00004.png", "00006.png")
    assert listing.duplicates == ((7, ("00007.jpg", "7.png")),)
    assert listing.not_frames == ("00005 (1).png", "cover.jpg")
    assert listing.not_files == ()


def test_a_gap_is_reported_not_refused(tmp_path):
    names = [f"{i:05d}.png" for i in range(32) if i != 16]
    _write_frames(tmp_path / "padded", names)
    assert [p.name for p in frames.list_frame_files(tmp_path / "padded")] == names
    listing = frames.scan_frame_folder(tmp_path / "padded")
    assert listing.gaps == (16,) and listing.missing_names() == ("00016.png",)
    assert listing.gap_text() == "00016.png missing (numbered 0..31, 31 frames)"
    _write_frames(tmp_path / "plain", [f"frames_{i}.png" for i in range(1, 131) if i != 7])
    listing = frames.scan_frame_folder(tmp_path / "plain")
    assert listing.missing_names() == ("frames_7.png",)
    assert listing.gap_text().startswith("frames_7.png missing")
    _write_frames(tmp_path / "many", [f"{i}.png" for i in (1, 9, 99, 101)])
    listing = frames.scan_frame_folder(tmp_path / "many")
    assert listing.missing_names()[:2] == ("2.png", "3.png") and "100.png" in listing.missing_names()
    assert "and 92 more" in listing.gap_text()
    assert frames.scan_frame_folder(tmp_path / "padded").gap_text() != ""
    _write_frames(tmp_path / "whole", ["a1.png", "a2.png"])
    assert frames.scan_frame_folder(tmp_path / "whole").gap_text() == ""


@pytest.mark.parametrize("name", ["cover.png", "00005 (1).png", "00005 copy.png",
                                  "frame0001_rgb.png"])
def test_an_image_whose_name_does_not_end_in_a_number_is_not_a_frame(tmp_path, name):
    """`00005 (1).png` (a copy) is not frame 1: it is named as not a frame."""
    _write_frames(tmp_path, ["00001.png", "00002.png", name])
    with pytest.raises(FrameInputError) as info:
        frames.list_frame_files(tmp_path)
    message = str(info.value)
    assert info.value.path == tmp_path / name
    assert "does not end in a frame number" in message and "both frame" not in message
    assert frames.parse_frame_name(name) is None


def test_parse_frame_name():
    name = frames.parse_frame_name("NewLevelSequence5.0012.JPG")
    assert (name.prefix, name.digits, name.suffix, name.number) == (
        "NewLevelSequence5.", "0012", ".JPG", 12)
    assert name.with_number(13) == "NewLevelSequence5.0013.JPG"
    assert frames.parse_frame_name("frames_9.png").with_number(10) == "frames_10.png"
    assert frames.parse_frame_name("0.png").with_number(1) == "1.png"
    assert frames.parse_frame_name("00005.txt") is None


@pytest.mark.parametrize("names", [["1.png", "01.png"], ["5.png", "5.jpg"]])
def test_duplicate_frame_numbers_rejected(tmp_path, names):
    _write_frames(tmp_path, names)
    with pytest.raises(FrameInputError, match="both frame"):
        frames.list_frame_files(tmp_path)


def test_missing_folder_and_file_path(tmp_path):
    with pytest.raises(FrameInputError, match="found nothing"):
        frames.list_frame_files(tmp_path / "nope")
    (tmp_path / "f.png").write_bytes(b"x")
    with pytest.raises(FrameInputError):
        frames.read_frame_folder(tmp_path / "f.png")


def test_empty_folder(tmp_path):
    with pytest.raises(FrameInputError, match="no image files"):
        frames.list_frame_files(tmp_path)
    (tmp_path / "readme.txt").write_text("hi")
    with pytest.raises(FrameInputError, match="no image files"):
        frames.read_frame_folder(tmp_path)


def test_unreadable_image(tmp_path):
    _write_frames(tmp_path, ["0000.png"])
    bad = tmp_path / "0001.png"
    bad.write_bytes(np.random.default_rng(1).bytes(500))
    with pytest.raises(FrameInputError, match="readable PNG/JPEG") as info:
        frames.read_image(bad)
    assert info.value.path == bad
    with pytest.raises(FrameInputError, match="0001.png"):
        frames.read_frame_folder(tmp_path)


def test_gray_and_bgra_become_bgr(tmp_path):
    gray = np.arange(12 * 10, dtype=np.uint8).reshape(12, 10)
    cv2.imwrite(str(tmp_path / "g.png"), gray)
    got = frames.read_image(tmp_path / "g.png")
    assert got.shape == (12, 10, 3) and got.dtype == np.uint8
    np.testing.assert_array_equal(got[..., 1], gray)
    bgra = np.full((5, 6, 4), 200, np.uint8)
    cv2.imwrite(str(tmp_path / "a.png"), bgra)
    assert frames.read_image(tmp_path / "a.png").shape == (5, 6, 3)


def test_read_frame_folder_png_exact(tmp_path):
    images = _write_frames(tmp_path, ["f_2.png", "f_0.png", "f_1.png"])
    got = frames.read_frame_folder(tmp_path)
    assert got.shape == (3, 24, 32, 3) and got.dtype == np.uint8
    for i in range(3):
        np.testing.assert_array_equal(got[i], images[f"f_{i}.png"])


def test_mixed_sizes_rejected(tmp_path):
    _write_frames(tmp_path, ["0.png", "1.png"])
    _write_frames(tmp_path, ["2.png"], shape=(20, 30, 3))
    with pytest.raises(FrameInputError) as info:
        frames.read_frame_folder(tmp_path)
    message = str(info.value)
    assert "2.png" in message and "32x24" in message and "30x20" in message
    assert info.value.path.name == "2.png"


def test_jpg_support(tmp_path):
    _write_frames(tmp_path, ["a_000.jpg", "a_001.jpeg", "a_002.JPG"])
    got = frames.read_frame_folder(tmp_path)
    assert got.shape == (3, 24, 32, 3)


def test_folder_max_side(tmp_path):
    images = _write_frames(tmp_path, ["0.png", "1.png"], shape=(60, 100, 3))
    got = frames.read_frame_folder(tmp_path, max_side=50)
    assert got.shape == (2, 30, 50, 3)
    np.testing.assert_array_equal(got[1], resize_max_side(images["1.png"], 50))
    assert frames.load_frames(tmp_path, max_side=640).shape == (2, 60, 100, 3)
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ValueError):
            frames.read_frame_folder(tmp_path, max_side=bad)




@pytest.mark.parametrize("make, found", [
    (lambda p: p.symlink_to(p.parent / "gone.png"), "a link to nothing"),
    (lambda p: p.mkdir(), "a directory"),
])
def test_an_entry_named_like_a_frame_that_is_not_a_file_fails_the_folder(tmp_path, make, found):
    """A frame is never silently dropped: the clip would be scored on fewer frames."""
    _write_frames(tmp_path / "clip", ["00000.png", "00001.png", "00002.png"])
    make(tmp_path / "clip" / "00010.png")
    with pytest.raises(FrameInputError) as raised:
        frames.list_frame_files(tmp_path / "clip")
    assert str(raised.value) == (f"{tmp_path / 'clip' / '00010.png'}: expected a frame image "
                                 f"file, found {found}")


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
