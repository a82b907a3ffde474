"""Partial reads: truncated images decode as cv2.imread decodes them, and are reported;
a video's decoded frame count is checked against its container's."""

import struct

import cv2
import numpy as np
import pytest

from metrics.testing import damaged_png
from metrics.video import frames
from metrics.video.frames import FrameInputError


def _image(seed=0):
    return (np.random.default_rng(seed).random((48, 64, 3)) * 255).astype(np.uint8)


def _folder(tmp_path, suffix=".jpg", n=4):
    folder = tmp_path / "frames"
    folder.mkdir(parents=True)
    for i in range(n):
        cv2.imwrite(str(folder / f"{i:05d}{suffix}"), _image(i))
    return folder


def _truncate(path):
    data = path.read_bytes()
    path.write_bytes(data[:len(data) // 2])


def test_a_truncated_jpeg_decodes_as_imread_does_and_is_reported(tmp_path):
    folder = _folder(tmp_path)
    _truncate(folder / "00002.jpg")
    official = cv2.imread(str(folder / "00002.jpg"))  # grey fill, as upstream reads it
    assert official is not None
    warnings = []
    got, _ = frames.load_frames_and_digest(folder, warnings=warnings, workers=2)
    np.testing.assert_array_equal(got[2], official)
    assert warnings == [f"{folder / '00002.jpg'}: a JPEG cut short (no end-of-image marker "
                        "after its last scan); decoded with grey fill, as the official "
                        "cv2.imread reads it"]
    # The reference-frame reader reports it too, in the order asked.
    ref_warnings = []
    files = frames.list_frame_files(folder)
    again = frames.read_frame_files([files[2], files[0], files[2]], None, 2, ref_warnings)
    np.testing.assert_array_equal(again[0], official)
    assert ref_warnings == warnings * 2


def test_complete_files_give_no_warning_and_the_same_frames(tmp_path):
    for suffix in (".jpg", ".png"):
        folder = _folder(tmp_path / suffix[1:], suffix)
        warnings = []
        got = frames.load_frames(folder, warnings=warnings)
        np.testing.assert_array_equal(got, frames.load_frames(folder))
        assert warnings == []


def test_a_png_without_iend_is_reported_or_refused(tmp_path):
    folder = _folder(tmp_path, ".png")
    _truncate(folder / "00001.png")
    warnings = []
    try:
        frames.load_frames(folder, warnings=warnings)
    except FrameInputError as e:
        assert "00001.png" in str(e)  # not decodable at all: the clip fails, named
    else:
        assert warnings and "00001.png: a PNG cut short" in warnings[0]


def _avi(tmp_path, n, declared):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 16, (64, 48))
    for i in range(n):
        writer.write(np.full((48, 64, 3), i * 10, np.uint8))
    writer.release()
    data = bytearray(path.read_bytes())
    for tag, offset in ((b"avih", 16), (b"strh", 32)):  # dwTotalFrames, dwLength
        at = data.find(tag) + 8 + offset
        data[at:at + 4] = struct.pack("<I", declared)
    path.write_bytes(bytes(data))
    return path


def test_a_video_shorter_than_its_container_fails_naming_the_file_as_declared(tmp_path):
    path = _avi(tmp_path, 21, 41)
    assert frames.video_frame_count(path) == 41 and len(frames.decode_video(path)) == 21
    with pytest.raises(FrameInputError, match=r"clip\.avi: expected the 41 frames its "
                       r"container declares, found only 21 decodable"):
        frames.load_frames(path, as_declared=True)


def test_a_video_longer_than_its_container_keeps_the_declared_frames_as_declared(tmp_path):
    path = _avi(tmp_path, 21, 10)
    warnings = []
    got, _ = frames.load_frames_and_digest(path, warnings=warnings, as_declared=True)
    np.testing.assert_array_equal(got, frames.decode_video(path)[:10])
    assert warnings == [f"{path}: 21 frames decode but its container declares 10; the "
                        "first 10 are used"]


@pytest.mark.parametrize("decoded,declared", [(21, 41), (21, 10)])
def test_by_default_every_decoded_frame_is_used_with_a_warning(tmp_path, decoded, declared):
    path = _avi(tmp_path, decoded, declared)
    warnings = []
    got = frames.load_frames(path, warnings=warnings)
    np.testing.assert_array_equal(got, frames.decode_video(path))
    assert warnings == [f"{path}: {decoded} frames decode but its container declares "
                        f"{declared}; all {decoded} decoded frames are used"]


def test_complete_refuses_a_video_shorter_than_its_container_as_as_declared_does(tmp_path):
    path = _avi(tmp_path, 21, 41)
    message = (r"clip\.avi: expected the 41 frames its container declares, found only 21 "
               r"decodable \(a truncated or damaged video\)")
    with pytest.raises(FrameInputError, match=message):
        frames.load_frames_and_digest(path, complete=True)
    with pytest.raises(FrameInputError, match=message):
        frames.load_frames(path, as_declared=True)


def test_complete_keeps_every_frame_of_a_video_longer_than_its_container(tmp_path):
    path = _avi(tmp_path, 21, 10)
    warnings = []
    got = frames.load_frames(path, warnings=warnings, complete=True)
    np.testing.assert_array_equal(got, frames.decode_video(path))
    assert warnings == [f"{path}: 21 frames decode but its container declares 10; all 21 "
                        "decoded frames are used"]


def test_complete_reads_a_whole_video_exactly_as_decode_video(tmp_path):
    path = _avi(tmp_path, 12, 12)
    warnings = []
    got, digest = frames.load_frames_and_digest(path, max_side=32, warnings=warnings,
                                                complete=True)
    np.testing.assert_array_equal(got, frames.load_frames(path, max_side=32))
    assert len(got) == 12 and warnings == [] and digest == frames.source_digest(path)


@pytest.mark.parametrize("make, found", [
    (lambda p: p.symlink_to("gone.mp4"), "a link to nothing (gone.mp4)"),
    (lambda p: p.symlink_to(p.name), "a symlink loop"),
    (lambda p: p.mkdir(), "a folder"),  # (load_frames reads a folder as frames)
])
def test_a_video_path_that_is_no_file_says_what_is_there(tmp_path, make, found):
    path = tmp_path / "clip.mp4"
    make(path)
    readers = [frames.decode_video, frames.video_frame_count,
               lambda p: frames.read_video_frames(p, [0])]
    for read in readers + ([] if path.is_dir() else [frames.load_frames]):
        with pytest.raises(FrameInputError) as raised:
            read(path)
        assert str(raised.value).startswith(f"{path}: expected ")
        assert str(raised.value).endswith(f", found {found}")


def test_a_symlink_loop_is_named(tmp_path):
    (tmp_path / "frames").symlink_to("frames")
    with pytest.raises(FrameInputError, match="found a symlink loop"):
        frames.load_frames(tmp_path / "frames")


@pytest.mark.parametrize("workers", [1, 3])
def test_a_png_whose_header_claims_100000x100000_pixels_is_an_input_error(tmp_path, workers):
    """OpenCV asserts (cv2.error, CV_IO_MAX_IMAGE_PIXELS) instead of returning None: that
    must not escape as an internal error; it is an unreadable frame, named."""
    folder = _folder(tmp_path, ".png")
    huge = folder / "00002.png"
    huge.write_bytes(damaged_png.png_claiming(100000, 100000))
    with pytest.raises(cv2.error):  # what escaped before
        cv2.imread(str(huge), cv2.IMREAD_COLOR)
    readers = [lambda: frames.read_image(huge),
               lambda: frames.decode_image(huge.read_bytes(), huge),
               lambda: frames.read_frame_files([huge], None, workers),
               lambda: frames.load_frames(folder, workers=workers),
               lambda: frames.load_frames_and_digest(folder, max_side=32, workers=workers)]
    for read in readers:
        with pytest.raises(FrameInputError) as info:
            read()
        assert info.value.path == huge
        assert "header claims 100000x100000 pixels" in str(info.value)
        assert "CV_IO_MAX_IMAGE_PIXELS" in str(info.value)
    huge.write_bytes(damaged_png.png_claiming(100000, 100000)[:40])  # not even a whole header
    with pytest.raises(FrameInputError, match="00002.png"):
        frames.load_frames(folder, workers=workers)


def test_read_image_or_none_keeps_cv2_imreads_contract(tmp_path):
    image = (np.arange(6 * 8 * 3) % 251).astype(np.uint8).reshape(6, 8, 3)
    cv2.imwrite(str(tmp_path / "ok.png"), image)
    np.testing.assert_array_equal(frames.read_image_or_none(tmp_path / "ok.png"), image)
    (tmp_path / "text.png").write_bytes(b"not an image")
    assert frames.read_image_or_none(tmp_path / "text.png") is None  # imread's None
    huge = tmp_path / "huge.png"
    huge.write_bytes(damaged_png.png_claiming(100000, 100000))
    with pytest.raises(FrameInputError, match="claims 100000x100000"):
        frames.read_image_or_none(huge)  # imread raises cv2.error here: an input error
