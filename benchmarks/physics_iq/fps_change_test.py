"""fps_change against a loop transcription of upstream's fps_changer (spec §4, §11.9)."""

import cv2
import numpy as np
import pytest

from benchmarks.physics_iq import fps_change


def _reference(frames, count_new):
    """One output frame at a time, Python floats against float32 arrays, as upstream."""
    n = len(frames)
    out = []
    for j in range(count_new):
        position = j * (n - 1) / (count_new - 1)
        low = int(position)
        weight = position - low
        a = np.asarray(frames[low]).astype(np.float32)
        b = np.asarray(frames[min(low + 1, n - 1)]).astype(np.float32)
        out.append(((1 - weight) * a + weight * b).astype(np.uint8))
    return np.stack(out)


@pytest.mark.parametrize("count, fps_new", [
    (150, 24.0), (150, 16.0), (150, 8.0), (150, 23.976), (150, 60.0), (97, 24.0), (300, 10.0)])
def test_resample_is_upstreams_loop(count, fps_new):
    frames = np.random.default_rng(count).integers(0, 256, (count, 6, 10, 3), dtype=np.uint8)
    read, count_new = fps_change.frame_counts(count, 30.0, fps_new)
    got = fps_change.resample(frames[:read], count_new)
    np.testing.assert_array_equal(got, _reference(frames[:read], count_new))


def test_frame_counts_first_five_seconds():
    assert fps_change.frame_counts(150, 30.0, 24.0) == (150, 120)
    assert fps_change.frame_counts(300, 30.0, 24.0) == (150, 120)  # only the first 5 s
    assert fps_change.frame_counts(97, 30.0, 24.0) == (97, 77)
    assert fps_change.frame_counts(150, 30.0, 23.976) == (150, 119)  # int(), not round()


def test_blend_truncates():
    frames = np.array([[[[0]]], [[[255]]]], np.uint8)
    mid = fps_change.resample(frames, 3)[1]
    assert mid.item() == 127  # 127.5 truncated by astype(uint8); rounding would give 128


def test_upstream_failures_raise():
    frames = np.zeros((5, 2, 2, 3), np.uint8)
    with pytest.raises(ValueError):
        fps_change.resample(frames, 1)  # upstream: ZeroDivisionError, no file
    with pytest.raises(ValueError):
        fps_change.resample(frames[:0], 4)  # upstream: IndexError, no file
    assert fps_change.resample(frames, 0).shape == (0, 2, 2, 3)


def test_name_uses_int_fps():
    name = "0001_testing-videos_30FPS_perspective-left_take-1_trimmed-x.mp4"
    assert fps_change.resampled_name(name, 30.0, 23.976) == name.replace("30FPS", "23FPS")
    assert fps_change.resampled_name(name, 30.0, 29.97) == name.replace("30FPS", "29FPS")


def test_locked_opencv_cannot_write_avc1(tmp_path):
    """Upstream's fourcc is not encodable with our opencv-python wheel (spec §4 [I]): if
    this starts failing, the wheel gained an H.264 encoder and upstream's resampling runs."""
    with pytest.raises(OSError, match="avc1"):
        fps_change.write_video(tmp_path / "x.mp4", np.zeros((2, 4, 4, 3), np.uint8), 24.0)


def test_change_fps_writes_even_size(tmp_path):
    src = tmp_path / "0001_testing-videos_30FPS_perspective-left_take-1_trimmed-x.mp4"
    writer = cv2.VideoWriter(str(src), cv2.VideoWriter_fourcc(*"mp4v"), 30, (33, 25))
    for k in range(60):
        writer.write(np.full((25, 33, 3), 4 * k, np.uint8))
    writer.release()
    out = fps_change.change_fps(src, tmp_path, 24.0, fourcc="mp4v")
    assert out.name == src.name.replace("30FPS", "24FPS")
    cap = cv2.VideoCapture(str(out))
    assert (cap.get(cv2.CAP_PROP_FPS), cap.get(cv2.CAP_PROP_FRAME_COUNT)) == (24.0, 48.0)
    assert (cap.get(cv2.CAP_PROP_FRAME_WIDTH), cap.get(cv2.CAP_PROP_FRAME_HEIGHT)) == (32, 24)
    cap.release()
