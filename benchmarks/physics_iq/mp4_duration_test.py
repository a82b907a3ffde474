"""mp4_duration against the numbers ffprobe printed for the same files (spec §2).

The expected values were printed by `ffprobe -show_entries format=duration` (Debian ffmpeg
5.1.9) for cv2-written mp4v files of these frame counts and rates (the scratch check is in
the report that added this file); upstream float()s that output (run_physics_iq.py:135-142).
"""

import cv2
import numpy as np
import pytest

from benchmarks.physics_iq import mp4_duration


def _write(path, fps, frames):
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (32, 24))
    assert writer.isOpened()
    for k in range(frames):
        writer.write(np.full((24, 32, 3), k % 255, np.uint8))
    writer.release()


@pytest.mark.parametrize("fps, frames, ffprobe", [
    (30, 150, 5.0), (30, 149, 4.967), (30, 151, 5.034), (24, 120, 5.0),
    (23.976, 120, 5.006), (29.97, 150, 5.006), (8, 40, 5.0), (30, 1, 0.034),
])
def test_matches_ffprobe(tmp_path, fps, frames, ffprobe):
    path = tmp_path / "v.mp4"
    _write(path, fps, frames)
    assert mp4_duration.duration_seconds(path) == ffprobe


def test_unreadable_is_none(tmp_path):
    text = tmp_path / "text.mp4"
    text.write_text("not a video")
    assert mp4_duration.duration_seconds(text) is None
    assert mp4_duration.duration_seconds(tmp_path / "absent.mp4") is None
    good = tmp_path / "v.mp4"
    _write(good, 30, 150)
    data = good.read_bytes()
    moov = data.find(b"moov")
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(data[:moov + 4])  # the header box announced but not there
    assert mp4_duration.duration_seconds(cut) is None
