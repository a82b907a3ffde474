"""Concealed stream damage: a warning naming the file, and OpenCV's frames unchanged."""

import logging
import subprocess

import imageio_ffmpeg
import numpy as np
import pytest

from metrics.video import frames
from metrics.video import stream_check
from metrics.video import video_files


def _h264(path, count=25, size=(320, 240)):
    """An H.264 clip of textured frames (x264 on one thread: the same bytes each run)."""
    rng = np.random.default_rng(0)
    width, height = size
    ramp = np.linspace(0, 255, width)[None, :, None] + np.linspace(0, 100, height)[:, None, None]
    clip = np.stack([(ramp + 8 * i + rng.integers(0, 30, (height, width, 3))) % 256
                     for i in range(count)]).astype(np.uint8)
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-y", "-loglevel", "error", "-f",
                    "rawvideo", "-pix_fmt", "bgr24", "-s", f"{width}x{height}", "-r", "8",
                    "-i", "-", "-c:v", "libx264", "-threads", "1", "-pix_fmt", "yuv420p",
                    str(path)], input=clip.tobytes(), check=True)
    return path


def _overwrite_middle(source, target, count=2000):
    """The issue's damage: `count` random bytes written over the middle of the file."""
    data = bytearray(source.read_bytes())
    middle = len(data) // 2
    data[middle:middle + count] = np.random.default_rng(2).integers(
        0, 256, count, dtype=np.uint8).tobytes()
    target.write_bytes(bytes(data))
    return target


@pytest.fixture(name="clips", scope="module")
def _clips(tmp_path_factory):
    folder = tmp_path_factory.mktemp("clips")
    good = _h264(folder / "good.mp4")
    return good, _overwrite_middle(good, folder / "damaged.mp4")


def test_a_clean_stream_gives_no_warning(clips):
    good, _ = clips
    warnings = []
    decoded = frames.load_frames(good, warnings=warnings, complete=True)
    assert warnings == []
    assert len(decoded) == 25
    assert stream_check.start(good).result() is None


def test_concealed_damage_is_a_warning_and_the_frames_are_opencvs(clips):
    good, damaged = clips
    # The case this check exists for: OpenCV decodes every declared frame, silently.
    assert video_files.video_frame_count(damaged) == 25
    assert len(video_files.decode_video(damaged)) == 25
    assert not np.array_equal(video_files.decode_video(damaged), video_files.decode_video(good))
    warnings = []
    decoded = frames.load_frames(damaged, warnings=warnings, complete=True)
    # The frames are OpenCV's, all of them. (Not compared pixel for pixel with a second
    # decode: FFmpeg's concealment of the damaged macroblocks depends on its decoding
    # threads' timing, so two decodes of a damaged stream can differ by a few levels.)
    assert decoded.shape == video_files.decode_video(good).shape
    assert len(warnings) == 1
    assert warnings[0].startswith(f"{damaged}: ffmpeg's decoder reports ")
    assert "error" in warnings[0] and "OpenCV conceals" in warnings[0]
    assert "0x" not in warnings[0]  # no decoder address: the same words every run


def test_the_warning_is_the_same_on_every_run(clips):
    _, damaged = clips
    first, second = [], []
    frames.load_frames(damaged, warnings=first)
    frames.load_frames(damaged, warnings=second)
    assert first == second


def test_without_a_warnings_list_it_is_logged(clips, caplog):
    _, damaged = clips
    with caplog.at_level(logging.WARNING):
        frames.load_frames(damaged)
    assert any("OpenCV conceals" in r.getMessage() for r in caplog.records)


def test_an_unrunnable_ffmpeg_is_said_not_hidden(clips, monkeypatch):
    good, _ = clips
    monkeypatch.setattr(stream_check, "_ffmpeg", lambda: "/nonexistent/ffmpeg")
    warnings = []
    frames.load_frames(good, warnings=warnings)
    assert len(warnings) == 1 and "could not run ffmpeg" in warnings[0]


def test_a_failed_decode_stops_the_check(tmp_path, monkeypatch):
    started = []
    real_start = stream_check.start

    def spy(path):
        started.append(real_start(path))
        return started[-1]

    monkeypatch.setattr(stream_check, "start", spy)
    with pytest.raises(frames.FrameInputError):
        frames.load_frames(tmp_path / "missing.mp4")
    assert all(check._process is None or check._process.poll() is not None  # pylint: disable=protected-access
               for check in started)
