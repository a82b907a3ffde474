"""Tests that video files are decoded frame by frame, each frame resized as it is decoded.

The reference is an independent decode-all-then-resize: a plain cv2.VideoCapture loop
that keeps every native frame, then resize_max_side on each, then np.stack.
"""

import cv2
import numpy as np
import pytest

from metrics.video import frames
from metrics.video import video_files
from metrics.video.resize import resize_max_side


def _write_clip(path, count=40, size=(320, 240), seed=0):
    """Writes `count` frames of smooth random texture that moves (mp4v)."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 10.0, size)
    assert writer.isOpened(), "OpenCV cannot write mp4v here"
    rng = np.random.default_rng(seed)
    base = cv2.resize(rng.integers(0, 256, (size[1] // 8, size[0] // 8, 3), np.uint8),
                      (size[0] * 2, size[1] * 2), interpolation=cv2.INTER_CUBIC)
    for i in range(count):
        writer.write(np.ascontiguousarray(base[i:i + size[1], 2 * i:2 * i + size[0]]))
    writer.release()


def _decode_all_then_resize(path, max_side):
    capture = cv2.VideoCapture(str(path))
    native = []
    while True:
        ok, frame = capture.read()
        if not ok:
            break
        native.append(frame)
    capture.release()
    if max_side is not None:
        native = [resize_max_side(f, max_side) for f in native]
    return np.stack(native)


@pytest.fixture(name="clip")
def _clip(tmp_path):
    path = tmp_path / "clip.mp4"
    _write_clip(path)
    return path


@pytest.mark.parametrize("max_side", [None, 320, 200, 97, 64])
def test_bit_identical_to_decode_all_then_resize(clip, max_side):
    got = frames.decode_video(clip, max_side)
    want = _decode_all_then_resize(clip, max_side)
    assert got.shape == want.shape and got.dtype == np.uint8
    assert np.array_equal(got, want)
    assert got.flags.c_contiguous
    if max_side == 97:  # 320x240 -> round(97 * 240 / 320) = round(72.75)
        assert got.shape == (40, 73, 97, 3)


def test_load_frames_and_digest_same_frames(clip):
    got, digest = frames.load_frames_and_digest(clip, max_side=128)
    assert np.array_equal(got, _decode_all_then_resize(clip, 128))
    assert digest == frames.source_digest(clip)


_REAL_CAPTURE = cv2.VideoCapture


class _Capture:
    """A real cv2.VideoCapture that logs each successful read in `log` and, with
    `declared`, reports that CAP_PROP_FRAME_COUNT."""

    def __init__(self, path, log=None, declared=None):
        self._capture = _REAL_CAPTURE(path)
        self._log = [] if log is None else log
        self._declared = declared

    def __getattr__(self, name):
        return getattr(self._capture, name)

    def get(self, prop):
        if prop == cv2.CAP_PROP_FRAME_COUNT and self._declared is not None:
            return float(self._declared)
        return self._capture.get(prop)

    def read(self):
        ok, frame = self._capture.read()
        if ok:
            self._log.append("read")
        return ok, frame


def test_each_frame_resized_as_it_is_decoded(clip, monkeypatch):
    log = []
    real_resize = cv2.resize
    shapes = []

    def logging_resize(frame, size, **kwargs):
        log.append("resize")
        shapes.append(frame.shape)
        return real_resize(frame, size, **kwargs)

    monkeypatch.setattr(video_files.cv2, "VideoCapture",
                        lambda path: _Capture(path, log))
    monkeypatch.setattr(video_files.cv2, "resize", logging_resize)
    got = frames.decode_video(clip, 100)
    assert got.shape == (40, 75, 100, 3)
    # Decoded and resized in lockstep: never two native frames waiting for a resize.
    assert log == ["read", "resize"] * 40
    assert shapes == [(240, 320, 3)] * 40
    monkeypatch.undo()
    assert np.array_equal(got, _decode_all_then_resize(clip, 100))


def test_output_is_one_preallocated_array(clip, monkeypatch):
    """No per-frame list and no stack: one array, allocated once, takes every frame."""
    allocated = []
    real_empty = np.empty

    def logging_empty(shape, *args, **kwargs):
        allocated.append(tuple(shape))
        return real_empty(shape, *args, **kwargs)

    monkeypatch.setattr(video_files.np, "empty", logging_empty)
    monkeypatch.setattr(video_files.np, "stack", None)
    got = frames.decode_video(clip, 160)
    monkeypatch.undo()
    assert allocated == [(40, 120, 160, 3)]
    assert got.shape == (40, 120, 160, 3)


def test_more_frames_than_declared_grow_the_array(clip, monkeypatch):
    monkeypatch.setattr(video_files.cv2, "VideoCapture",
                        lambda path: _Capture(path, declared=7))
    warnings = []
    got = frames.decode_video_checked(clip, 90, warnings)
    monkeypatch.undo()
    assert np.array_equal(got, _decode_all_then_resize(clip, 90))
    assert warnings == [f"{clip}: 40 frames decode but its container declares 7; "
                        "all 40 decoded frames are used"]


def test_as_declared_keeps_only_the_declared_frames(clip, monkeypatch):
    monkeypatch.setattr(video_files.cv2, "VideoCapture",
                        lambda path: _Capture(path, declared=7))
    warnings = []
    got = frames.decode_video_checked(clip, None, warnings, as_declared=True)
    monkeypatch.undo()
    assert np.array_equal(got, _decode_all_then_resize(clip, None)[:7])
    assert warnings == [f"{clip}: 40 frames decode but its container declares 7; "
                        "the first 7 are used"]


def test_fewer_frames_than_declared_are_cut(clip, monkeypatch):
    monkeypatch.setattr(video_files.cv2, "VideoCapture",
                        lambda path: _Capture(path, declared=100))
    got = frames.decode_video(clip, 64)
    monkeypatch.undo()
    assert got.shape[0] == 40 and got.base is None  # a copy: 60 of 100 slots unused
    assert np.array_equal(got, _decode_all_then_resize(clip, 64))
