"""Tests for metrics.video.frames: decoding videos (mp4 round trip, indices, damage)."""

import cv2
import numpy as np
import pytest

from metrics.video import frames
from metrics.video.frames import FrameInputError


def _write_mp4(path, count=10, size=(64, 48)):
    """Writes flat frames of grey level 20 * i + 10; returns the levels."""
    writer = cv2.VideoWriter(
        str(path), cv2.VideoWriter_fourcc(*"mp4v"), 10.0, size
    )
    assert writer.isOpened(), "OpenCV cannot write mp4v here"
    levels = [20 * i + 10 for i in range(count)]
    for level in levels:
        writer.write(np.full((size[1], size[0], 3), level, np.uint8))
    writer.release()
    return levels


def test_mp4_round_trip(tmp_path):
    path = tmp_path / "clip.mp4"
    levels = _write_mp4(path)
    video = frames.decode_video(path)
    assert video.shape == (10, 48, 64, 3) and video.dtype == np.uint8
    means = video.reshape(10, -1).mean(axis=1)
    # mp4v is lossy (and YUV limited range); levels are 20 apart, so this
    # still checks that frames come back in order.
    np.testing.assert_allclose(means, levels, atol=6)
    assert frames.video_frame_count(path) == 10
    np.testing.assert_array_equal(frames.load_frames(path), video)
    indices = [3, 0, 3, 9, 5, np.int64(1)]
    picked = frames.read_video_frames(path, indices)
    assert len(picked) == len(indices)
    for index, frame in zip(indices, picked):
        np.testing.assert_array_equal(frame, video[index])
    assert picked[0] is not picked[2]
    assert frames.read_video_frames(path, []) == []


def test_read_video_frames_bad_indices(tmp_path):
    path = tmp_path / "clip.mp4"
    _write_mp4(path)
    with pytest.raises(FrameInputError) as info:
        frames.read_video_frames(path, [2, 10])
    assert "10" in str(info.value) and "only 10 decodable" in str(info.value)
    for bad in (-1, 1.0, True):
        with pytest.raises(ValueError):
            frames.read_video_frames(path, [bad])


def test_decode_video_max_side(tmp_path):
    path = tmp_path / "clip.MP4"
    _write_mp4(path, count=4)
    got = frames.load_frames(path, max_side=32)
    assert got.shape == (4, 24, 32, 3)


def test_corrupt_mp4(tmp_path):
    path = tmp_path / "bad.mp4"
    path.write_bytes(np.random.default_rng(2).bytes(4096))
    with pytest.raises(FrameInputError, match="decodable video"):
        frames.decode_video(path)
    with pytest.raises(FrameInputError):
        frames.video_frame_count(path)
    with pytest.raises(FrameInputError):
        frames.read_video_frames(path, [0])
    with pytest.raises(FrameInputError):
        frames.load_frames(path)


def test_truncated_mp4(tmp_path):
    good = tmp_path / "good.mp4"
    _write_mp4(good, count=10)
    data = good.read_bytes()
    # OpenCV's mp4 writer puts the index (moov) last, so half a file has
    # frame data but no index and cannot be opened.
    half = tmp_path / "half.mp4"
    half.write_bytes(data[: len(data) // 2])
    with pytest.raises(FrameInputError, match="decodable video"):
        frames.decode_video(half)
    with pytest.raises(FrameInputError):
        frames.read_video_frames(half, [0])
    # A few bytes off the end may or may not still decode; it must not crash.
    tail = tmp_path / "tail.mp4"
    tail.write_bytes(data[:-20])
    try:
        video = frames.decode_video(tail)
    except FrameInputError:
        return
    assert 1 <= len(video) <= 10
    assert video.shape[1:] == (48, 64, 3)


def test_missing_video_and_unknown_source(tmp_path):
    with pytest.raises(FrameInputError, match="no such file"):
        frames.decode_video(tmp_path / "none.mp4")
    with pytest.raises(FrameInputError):
        frames.video_frame_count(tmp_path / "none.mp4")
    (tmp_path / "x.txt").write_text("x")
    with pytest.raises(FrameInputError, match="frame folder"):
        frames.load_frames(tmp_path / "x.txt")
    with pytest.raises(FrameInputError, match="found nothing"):
        frames.load_frames(tmp_path / "none.gif")


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
