"""Tests for the thread-pooled frame reading and the read-once digest in frames."""

import contextlib
import hashlib
import os
import pathlib

import cv2
import numpy as np
import pytest

from metrics.video import frames
from metrics.video.frames import FrameInputError
from metrics.video.resize import resize_max_side
from tools.testing import non_root_reads


def _textured(rng, shape):
    """Noise over a gradient: not flat, so codecs and resizes do real work."""
    h, w = shape[:2]
    base = np.add.outer(np.arange(h) * 2.0, np.arange(w) * 1.5)[..., None]
    return np.clip(base + rng.normal(0, 20, shape), 0, 255).astype(np.uint8)


def _folder(path, count=13, shape=(90, 160, 3), ext="png", seed=0):
    rng = np.random.default_rng(seed)
    path.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        assert cv2.imwrite(str(path / f"frame_{i:04d}.{ext}"), _textured(rng, shape))
    return path


def _old_input_digest(source: pathlib.Path) -> str:
    """benchmarks/memobench/clip_eval.input_digest as it was (the digest to keep)."""
    digest = hashlib.sha256()
    paths = frames.list_frame_files(source) if source.is_dir() else [source]
    for path in paths:
        digest.update(path.name.encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _serial_folder(folder, max_side=None):
    """The serial reference: cv2.imread per file in frame order, then resize."""
    out = []
    for path in frames.list_frame_files(folder):
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        out.append(frame if max_side is None else resize_max_side(frame, max_side))
    return np.stack(out)


@pytest.mark.parametrize("ext", ["png", "jpg"])
@pytest.mark.parametrize("max_side", [None, 64])
def test_parallel_equals_serial_bit_for_bit(tmp_path, ext, max_side):
    folder = _folder(tmp_path / "f", ext=ext)
    want = _serial_folder(folder, max_side)
    for workers in (1, 2, 4, 7, 32):
        got = frames.read_frame_folder(folder, max_side, workers=workers)
        assert got.dtype == np.uint8 and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
        got2, _ = frames.load_frames_and_digest(folder, max_side, workers=workers)
        np.testing.assert_array_equal(got2, want)
    np.testing.assert_array_equal(frames.load_frames(folder, max_side), want)


def test_digest_equals_old_input_digest(tmp_path):
    folder = _folder(tmp_path / "f")
    want = _old_input_digest(folder)
    digests = {frames.load_frames_and_digest(folder, 64, workers=w)[1] for w in (1, 2, 4)}
    assert digests == {want}
    assert frames.source_digest(folder) == want
    (folder / "frame_0003.png").write_bytes(
        (folder / "frame_0004.png").read_bytes())  # content change moves the digest
    assert frames.load_frames_and_digest(folder, workers=4)[1] != want


def test_video_digest_is_over_the_file(tmp_path):
    path = tmp_path / "clip.mp4"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 10.0, (64, 48))
    assert writer.isOpened()
    rng = np.random.default_rng(3)
    for _ in range(6):
        writer.write(_textured(rng, (48, 64, 3)))
    writer.release()
    got, digest = frames.load_frames_and_digest(path, max_side=32, workers=4)
    assert digest == _old_input_digest(path) == frames.source_digest(path)
    np.testing.assert_array_equal(got, frames.decode_video(path, max_side=32))


def test_decode_image_equals_imread(tmp_path):
    folder = _folder(tmp_path / "f", count=2, ext="jpg")
    gray = tmp_path / "g.png"
    cv2.imwrite(str(gray), np.arange(120, dtype=np.uint8).reshape(10, 12))
    bgra = tmp_path / "a.png"
    cv2.imwrite(str(bgra), np.full((5, 6, 4), 77, np.uint8))
    for path in list(folder.iterdir()) + [gray, bgra]:
        np.testing.assert_array_equal(frames.decode_image(path.read_bytes(), path),
                                      frames.read_image(path))
    with pytest.raises(FrameInputError, match="readable PNG/JPEG") as info:
        frames.decode_image(b"", gray)
    assert info.value.path == gray


@pytest.mark.parametrize("workers", [1, 4])
def test_errors_name_the_first_bad_file_in_frame_order(tmp_path, workers):
    folder = _folder(tmp_path / "f", count=9)
    (folder / "frame_0005.png").write_bytes(b"not a png")
    (folder / "frame_0007.png").write_bytes(b"nor this")
    for call in (lambda: frames.read_frame_folder(folder, workers=workers),
                 lambda: frames.load_frames_and_digest(folder, 64, workers=workers)):
        with pytest.raises(FrameInputError, match="readable PNG/JPEG") as info:
            call()
        assert info.value.path.name == "frame_0005.png"


@pytest.mark.parametrize("workers", [1, 4])
def test_mixed_sizes_name_the_file(tmp_path, workers):
    folder = _folder(tmp_path / "f", count=6)
    _folder(tmp_path / "other", count=1, shape=(40, 50, 3))
    (tmp_path / "other" / "frame_0000.png").replace(folder / "frame_0004.png")
    with pytest.raises(FrameInputError) as info:
        frames.load_frames_and_digest(folder, workers=workers)
    assert info.value.path.name == "frame_0004.png"
    assert "160x90" in str(info.value) and "50x40" in str(info.value)


def test_unreadable_file_is_named(tmp_path):
    """Runs as root too (CI does): the read refused as a non-root reader's would be."""
    folder = _folder(tmp_path / "f", count=4)
    (folder / "frame_0002.png").chmod(0)
    as_root = os.geteuid() == 0
    with non_root_reads.reads_as_non_root() if as_root else contextlib.nullcontext() as refused:
        with pytest.raises(FrameInputError, match="frame_0002.png"):
            frames.read_frame_folder(folder, workers=4)
    assert not as_root or [pathlib.Path(p).name for p in refused] == ["frame_0002.png"]


def test_read_frame_files_any_order_and_resize(tmp_path):
    folder = _folder(tmp_path / "f", count=5, ext="jpg")
    paths = frames.list_frame_files(folder)
    order = [paths[i] for i in (3, 0, 3, 4)]
    want = [cv2.resize(cv2.imread(str(p)), (40, 23), interpolation=cv2.INTER_AREA)
            for p in order]
    for workers in (1, 3):
        got = frames.read_frame_files(order, (40, 23), workers)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    assert frames.read_frame_files([], (40, 23), 4) == []


def test_read_video_frames_resized_equals_native_then_resize(tmp_path):
    path = tmp_path / "clip.mp4"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 10.0, (96, 64))
    rng = np.random.default_rng(5)
    for _ in range(8):
        writer.write(_textured(rng, (64, 96, 3)))
    writer.release()
    indices = [6, 1, 1, 3]
    native = frames.read_video_frames(path, indices)
    want = [cv2.resize(f, (50, 31), interpolation=cv2.INTER_AREA) for f in native]
    for workers in (1, 4):
        got = frames.read_video_frames(path, indices, (50, 31), workers)
        assert len(got) == 4 and got[1] is not got[2]
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    with pytest.raises(FrameInputError, match="index 8"):
        frames.read_video_frames(path, [2, 8], (50, 31), 4)


def test_workers_argument_and_environment(monkeypatch, tmp_path):
    folder = _folder(tmp_path / "f", count=2)
    for bad in (0, -1, 2.0, True, "2"):
        with pytest.raises(ValueError, match="workers"):
            frames.read_frame_folder(folder, workers=bad)
    monkeypatch.delenv(frames.WORKERS_ENV, raising=False)
    monkeypatch.delenv("WORLDEVAL_DECODE_WORKERS", raising=False)
    assert frames.default_workers() == max(1, min(8, os.cpu_count() or 1))
    monkeypatch.setenv("WORLDEVAL_DECODE_WORKERS", "5")  # the earlier name, still read
    assert frames.default_workers() == 5
    monkeypatch.setenv(frames.WORKERS_ENV, "3")  # the current name wins
    assert frames.WORKERS_ENV == "WORLDEVAL_FRAME_THREADS" and frames.default_workers() == 3
    monkeypatch.setenv(frames.WORKERS_ENV, "zero")
    with pytest.raises(ValueError, match=frames.WORKERS_ENV):
        frames.default_workers()


def test_single_frame_and_no_resize_folders(tmp_path):
    folder = _folder(tmp_path / "one", count=1)
    for workers in (1, 4):
        got, digest = frames.load_frames_and_digest(folder, 64, workers=workers)
        np.testing.assert_array_equal(got, _serial_folder(folder, 64))
        assert digest == _old_input_digest(folder)
    small = _folder(tmp_path / "small", count=5, shape=(20, 30, 3))
    np.testing.assert_array_equal(frames.read_frame_folder(small, 640, workers=3),
                                  _serial_folder(small))
