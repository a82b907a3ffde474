"""The judge's video: llm-vqa.py's re-encode (mp4v, native size, the fps rule)."""

import cv2
import numpy as np
import pytest

from benchmarks.common import sample_records
from benchmarks.common.errors import InputError
from benchmarks.memobench.vqa import video
from metrics.testing import damaged_png
from metrics.video import frames as frames_lib
from tools.fixtures import fixture_io

H, W = 32, 48


def _frames(folder, n, start=0):
    for i in range(n):
        frame = np.full((H, W, 3), (i * 2) % 256, np.uint8)
        fixture_io.write_png(folder / f"{start + i:05d}.png", frame)
    return folder


def _read_back(path):
    cap = cv2.VideoCapture(str(path))
    try:
        return (cap.get(cv2.CAP_PROP_FPS), int(cap.get(cv2.CAP_PROP_FRAME_COUNT)),
                int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT)),
                int(cap.get(cv2.CAP_PROP_FOURCC)))
    finally:
        cap.release()


@pytest.mark.parametrize("n, fps", [(1, 16), (81, 16), (100, 16), (101, 24), (129, 24)])
def test_fps_rule(n, fps):
    assert video.fps_for(n) == fps


@pytest.mark.parametrize("n, fps", [(100, 16), (101, 24)])
def test_reencode_at_the_boundary(tmp_path, n, fps):
    src = _frames(tmp_path / "frames", n)
    encoded = video.frames_to_mp4(src, tmp_path / "out.mp4")
    assert (encoded.fps, encoded.frame_count, encoded.frames_written) == (fps, n, n)
    got_fps, count, width, height, fourcc = _read_back(encoded.path)
    assert (got_fps, count, width, height) == (fps, n, W, H)  # native size, no resize
    del fourcc  # OpenCV's decoder reports FMP4 for any MPEG-4 Part 2 stream
    assert b"mp4v" in encoded.path.read_bytes()  # the stsd sample entry of an mp4v track


def test_unreadable_frames_are_left_out_but_counted(tmp_path):
    src = _frames(tmp_path / "frames", 101)
    (src / "00050.png").write_bytes(b"not a png")
    encoded = video.frames_to_mp4(src, tmp_path / "out.mp4")
    # 101 files set 24 fps (as upstream counts paths); 100 decodable frames are written.
    assert (encoded.fps, encoded.frame_count, encoded.frames_written) == (24, 101, 100)
    assert _read_back(encoded.path)[:2] == (24, 100)
    # Named in the sample's input warnings: a recorded warning, the video unchanged.
    assert encoded.warnings == (
        f"{src / '00050.png'}: not a readable image (cv2.imread gives None); left out of "
        "the video sent to the judge, as llm-vqa.py leaves it out (it still counts for the "
        "fps rule)",)
    assert encoded.diagnostics()[sample_records.WARNINGS] == encoded.warnings[0]
    clean = video.frames_to_mp4(_frames(tmp_path / "clean", 3), tmp_path / "clean.mp4")
    assert sample_records.WARNINGS not in clean.diagnostics()


@pytest.mark.parametrize("index", [0, 2])
def test_a_png_opencv_refuses_is_named_not_cv2_error(tmp_path, index):
    """A PNG whose header claims 100000x100000 pixels (cv2.error upstream): a
    FrameInputError naming the file, which the clip reports as its error row."""
    src = _frames(tmp_path / "frames", 4)
    huge = src / f"{index:05d}.png"
    huge.write_bytes(damaged_png.png_claiming(100000, 100000))
    with pytest.raises(frames_lib.FrameInputError) as raised:
        video.frames_to_mp4(src, tmp_path / "out.mp4")
    assert str(raised.value).startswith(f"{huge}: expected a readable PNG/JPEG image")
    assert "a PNG whose header claims 100000x100000 pixels" in str(raised.value)


@pytest.mark.parametrize("suffix", [".png", ".jpg"])
def test_frames_written_are_cv2_imread_pixels(tmp_path, suffix, monkeypatch):
    """The shared reader gives the frame cv2.imread gave (BGR, same bytes)."""
    rng = np.random.default_rng(0)
    src = tmp_path / "frames"
    src.mkdir()
    for i in range(3):
        image = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
        image[..., 0] = 0  # blue 0: a BGR/RGB swap would show
        cv2.imwrite(str(src / f"{i:05d}{suffix}"), image)
    written = []

    class Writer:  # records what the encoder is given
        def __init__(self, *args):
            del args

        def isOpened(self):  # pylint: disable=invalid-name
            return True

        def write(self, frame):
            written.append(frame.copy())

        def release(self):
            pass

    monkeypatch.setattr(video.cv2, "VideoWriter", Writer)
    video.frames_to_mp4(src, tmp_path / "out.mp4")
    expected = [cv2.imread(str(p)) for p in sorted(src.iterdir())]
    assert len(written) == 3
    assert all(np.array_equal(a, b) and a.dtype == b.dtype for a, b in zip(written, expected))


def test_unreadable_first_frame_and_order_mismatch_fail(tmp_path):
    src = _frames(tmp_path / "a", 3)
    (src / "00000.png").write_bytes(b"")
    with pytest.raises(frames_lib.FrameInputError, match="readable first frame"):
        video.frames_to_mp4(src, tmp_path / "a.mp4")
    mixed = tmp_path / "b"
    for name in ("f9.png", "f10.png"):  # lexicographic (upstream) != numeric order
        fixture_io.write_png(mixed / name, np.zeros((H, W, 3), np.uint8))
    with pytest.raises(frames_lib.FrameInputError):
        video.frames_to_mp4(mixed, tmp_path / "b.mp4")


def test_judge_video_for_each_layout(tmp_path):
    root = tmp_path / "Synthetic"
    _frames(root / "Barnyard" / "Barnyard_001" / "frames", 5)
    _frames(root / "Havana_002" / "samples-rgb", 4)
    fixture_io.write_mp4(root / "Nordic_003.mp4", np.zeros((6, H, W, 3), np.uint8), 30)
    clips = video.discover(root)
    assert sorted(clips) == ["Barnyard_001", "Havana_002", "Nordic_003"]
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    nested = video.judge_video(clips["Barnyard_001"], scratch)
    assert (nested.re_encoded, nested.fps, nested.path.parent) == (True, 16, scratch)
    assert video.judge_video(clips["Havana_002"], scratch).frames_written == 4
    as_is = video.judge_video(clips["Nordic_003"], scratch)
    assert (as_is.re_encoded, as_is.path, as_is.frame_count, as_is.fps) == (
        False, root / "Nordic_003.mp4", 6, 30)


def test_a_clip_discovery_refused_is_an_input_error(tmp_path):
    """Two sources of one clip (generated.py): the case's error names both, nothing sent."""
    root = tmp_path / "Synthetic"
    _frames(root / "Barnyard" / "Barnyard_001" / "frames", 3)
    _frames(root / "Barnyard_001" / "frames", 3)
    clip = video.discover(root)["Barnyard_001"]
    with pytest.raises(InputError) as raised:
        video.judge_video(clip, tmp_path)
    assert "expected one source of generated clip Barnyard_001" in str(raised.value)
    assert str(root / "Barnyard_001") in str(raised.value)
    assert not list(tmp_path.glob("*.mp4"))
