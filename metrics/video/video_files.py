"""Reading video files: frame counts, whole decodes and frames by index."""

import concurrent.futures
import operator
import os
import pathlib

import cv2
import numpy as np

from metrics.video.frame_errors import FrameInputError, check_workers, resize_area
from metrics.video.resize import check_max_side, resize_max_side


def _open_video(path, expected):
    """Opens a video, raising FrameInputError if it is missing or unopenable."""
    path = pathlib.Path(path)
    if not path.is_file():
        raise FrameInputError(path, expected, "no such file")
    capture = cv2.VideoCapture(os.fspath(path))
    if not capture.isOpened():
        capture.release()
        raise FrameInputError(path, expected, "a file OpenCV cannot open")
    return capture


def video_frame_count(path):
    """Returns a video's `cv2.CAP_PROP_FRAME_COUNT`, as the official code does.

    The container's count can differ from the number of decodable frames.

    Args:
        path: Video file path.

    Returns:
        Positive frame count.

    Raises:
        FrameInputError: If the file is missing, unopenable or empty.
    """
    expected = "a video with a positive frame count"
    capture = _open_video(path, expected)
    try:
        count = int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
    finally:
        capture.release()
    if count <= 0:
        raise FrameInputError(path, expected, f"frame count {count}")
    return count


def decode_video(path, max_side=None):
    """Decodes every frame of a video, in order.

    Args:
        path: Video file path.
        max_side: If given, each frame is shrunk with resize_max_side.

    Returns:
        Array of shape (N, H, W, 3) and dtype uint8, BGR.

    Raises:
        FrameInputError: If the file is missing, unopenable or no frame
            decodes.
        ValueError: If max_side is not None and not a positive int.
    """
    if max_side is not None:
        check_max_side(max_side)
    expected = "a decodable video (mp4)"
    capture = _open_video(path, expected)
    frames = []
    try:
        while True:
            ok, frame = capture.read()
            if not ok or frame is None:
                break
            if max_side is not None:
                frame = resize_max_side(frame, max_side)
            frames.append(frame)
    finally:
        capture.release()
    if not frames:
        raise FrameInputError(path, expected, "no decodable frames")
    return np.stack(frames)


def decode_video_checked(path, max_side=None, warnings=None, as_declared=False):
    """decode_video, with the decoded count checked against the container's.

    A count that differs from the container's CAP_PROP_FRAME_COUNT is appended to
    `warnings` (if a list), naming the file. With `as_declared`, the clip is read the way
    readers that take the container's count as its length and read frames by index do
    (a benchmark's own VideoReader, say): fewer decodable frames than declared fail, as
    such a reader fails on the first frame past them; more keep the first `declared`.

    Raises:
        FrameInputError: As decode_video, or (as_declared) when fewer frames decode than
            declared.
    """
    frames = decode_video(path, max_side)
    capture = _open_video(path, "a decodable video (mp4)")
    try:
        declared = int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
    finally:
        capture.release()
    if declared <= 0 or declared == len(frames):
        return frames
    if as_declared and len(frames) < declared:
        raise FrameInputError(path, f"the {declared} frames its container declares",
                              f"only {len(frames)} decodable (a truncated or damaged video)")
    if warnings is not None:
        used = (f"the first {declared} are used" if as_declared else
                f"all {len(frames)} decoded frames are used")
        warnings.append(f"{path}: {len(frames)} frames decode but its container "
                        f"declares {declared}; {used}")
    return frames[:declared] if as_declared else frames


def _frame_index(index):
    """Returns index as a non-negative Python int, else raises ValueError."""
    try:
        value = None if isinstance(index, bool) else operator.index(index)
    except TypeError:
        value = None
    if value is None or value < 0:
        raise ValueError(f"frame index must be an int >= 0, got {index!r}")
    return value


def read_video_frames(path, indices, size=None, workers=1):
    """Returns frames at the given 0-based indices, native or resized to `size`.

    The video is decoded once, sequentially, keeping only the requested
    frames; seeking is avoided because it is inexact for some codecs. With
    `size`, each kept frame is resized with cv2.INTER_AREA (from native
    resolution, no crop) on `workers` threads while decoding goes on.

    Args:
        path: Video file path.
        indices: Frame indices, in any order, possibly repeated.
        size: If given, (width, height) of the returned frames.
        workers: Resize threads (only used with `size`; None: default_workers()).

    Returns:
        (H, W, 3) uint8 BGR arrays, one (a separate copy) per index given.

    Raises:
        ValueError: If an index is not a non-negative int, or workers is not a
            positive int.
        FrameInputError: If the video cannot be opened or an index is not
            below the number of decodable frames.
    """
    wanted = [_frame_index(index) for index in indices]
    workers = check_workers(workers)
    pool = None
    if size is not None and workers > 1 and len(set(wanted)) > 1:
        pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=min(workers, len(set(wanted))), thread_name_prefix="frame-resize")

    def keep(frame):
        if size is None:
            return frame
        if pool is None:
            return resize_area(frame, size)
        return pool.submit(resize_area, frame, size)

    try:
        capture = _open_video(path, "a decodable video (mp4)")
        needed = set(wanted)
        last = max(needed, default=-1)
        kept = {}
        decoded = 0
        try:
            while decoded <= last:
                if not capture.grab():
                    break
                if decoded in needed:
                    ok, frame = capture.retrieve()
                    if not ok or frame is None:
                        break
                    kept[decoded] = keep(frame)
                decoded += 1
        finally:
            capture.release()
        if decoded <= last:
            missing = min(i for i in needed if i >= decoded)
            raise FrameInputError(
                path,
                f"a video with a frame at index {missing}",
                f"only {decoded} decodable frames",
            )
        if pool is not None:
            kept = {i: future.result() for i, future in kept.items()}
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    return [kept[i].copy() for i in wanted]
