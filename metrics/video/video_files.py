"""Reading video files: frame counts, whole decodes and frames by index."""

import concurrent.futures
import logging
import operator
import os
import pathlib

import cv2
import numpy as np

from metrics.video import stream_check
from metrics.video.frame_errors import FrameInputError, check_workers, not_a_file, resize_area
from metrics.video.resize import check_max_side, max_side_size


def _open_video(path, expected):
    """Opens a video, raising FrameInputError (saying what is there instead: nothing, a
    folder, a link to nothing, a symlink loop) if it is missing or unopenable."""
    path = pathlib.Path(path)
    if not path.is_file():
        raise FrameInputError(path, expected, not_a_file(path))
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


# A container's frame count is not trusted beyond this many frames (a damaged header can
# declare millions): the array grows past it as frames actually decode.
_MAX_PREALLOCATED = 1 << 16


class _Slots:
    """A growing (N, H, W, 3) uint8 array that frames are decoded or resized into.

    It is allocated once for the container's declared count; a video that decodes more
    frames than declared grows it by half (one copy); one that decodes fewer returns a
    view when at most an eighth is unused, else a copy of the decoded part.
    """

    def __init__(self, capacity):
        self.capacity = max(int(capacity), 1)
        self.array = None
        self.count = 0

    def next(self, shape):
        """The next free slot; `shape` (the caller's, the same for every frame) sizes
        the array on the first call."""
        if self.array is None:
            self.array = np.empty((self.capacity,) + tuple(shape), np.uint8)
        elif self.count == len(self.array):
            grown = np.empty((len(self.array) + len(self.array) // 2 + 1,)
                             + self.array.shape[1:], np.uint8)
            grown[:self.count] = self.array
            self.array = grown
        self.count += 1
        return self.array[self.count - 1]

    def frames(self):
        unused = len(self.array) - self.count
        if unused * 8 <= len(self.array):
            return self.array[:self.count]
        return self.array[:self.count].copy()  # frees the unused tail


def _put(frame, slot, size):
    """Writes `frame` into `slot`, resized to `size` ((width, height)) with INTER_AREA
    (resize_max_side's call) when size is given."""
    if size is None:
        slot[...] = frame
        return
    resized = cv2.resize(frame, size, dst=slot, interpolation=cv2.INTER_AREA)
    if not np.shares_memory(resized, slot):  # OpenCV chose another buffer
        slot[...] = resized


def _decode(path, max_side, keep_declared=False):
    """Decodes a video frame by frame into one preallocated array.

    Each frame is resized (resize_max_side's rule, sized from the first frame) into its
    slot as soon as it is decoded, so that at most one full-resolution frame is alive
    besides the output. With `keep_declared`, only the first `declared` frames (when
    positive) are kept; the rest are decoded, to be counted, and dropped.

    Returns:
        (frames (N, H, W, 3) uint8 BGR, number of decodable frames, declared count).
    """
    if max_side is not None:
        check_max_side(max_side)
    expected = "a decodable video (mp4)"
    capture = _open_video(path, expected)
    try:
        declared = int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
        keep = declared if keep_declared and declared > 0 else None
        slots = _Slots(min(declared, _MAX_PREALLOCATED) if declared > 0 else 1)
        decoded, native, size = 0, None, None
        while True:
            ok, frame = capture.read()
            if not ok or frame is None:
                break
            if native is None:
                native = frame.shape
                size = None if max_side is None else max_side_size(native, max_side)
            if keep is None or decoded < keep:
                if frame.shape != native:
                    raise FrameInputError(path, f"frames of one size ({native[1]}x"
                                          f"{native[0]})", f"{frame.shape[1]}x"
                                          f"{frame.shape[0]} at frame {decoded}")
                shape = native if size is None else (size[1], size[0]) + native[2:]
                _put(frame, slots.next(shape), size)
            decoded += 1
            del frame
    finally:
        capture.release()
    if not decoded:
        raise FrameInputError(path, expected, "no decodable frames")
    return slots.frames(), decoded, declared


def decode_video(path, max_side=None):
    """Decodes every frame of a video, in order.

    Frames are decoded one at a time into one preallocated array (its size from the
    container's frame count), each resized as soon as it is decoded: the peak is the
    output plus one full-resolution frame. The values are those of decoding every frame
    and then applying resize_max_side to each.

    Args:
        path: Video file path.
        max_side: If given, each frame is shrunk with resize_max_side.

    Returns:
        Array of shape (N, H, W, 3) and dtype uint8, BGR.

    Raises:
        FrameInputError: If the file is missing, unopenable or no frame
            decodes, or its frames change size.
        ValueError: If max_side is not None and not a positive int.
    """
    return _decode(path, max_side)[0]


def decode_video_checked(path, max_side=None, warnings=None, as_declared=False,
                         complete=False):
    """decode_video, with the decoded count checked against the container's.

    A count that differs from the container's CAP_PROP_FRAME_COUNT is appended to
    `warnings` (if a list), naming the file. With `as_declared`, the clip is read the way
    readers that take the container's count as its length and read frames by index do
    (a benchmark's own VideoReader, say): fewer decodable frames than declared fail, as
    such a reader fails on the first frame past them; more keep the first `declared`
    (the rest are decoded, to be counted, but not kept). With `complete`, fewer decodable
    frames than declared fail the same way (the decoder stopped at damage in the file),
    and every decoded frame is kept: the frames of a whole video are exactly those of
    decode_video, as for readers that read until the decoder stops.

    Damage OpenCV conceals (it decodes every frame, some smeared) is found by
    `stream_check`, FFmpeg decoding the same file alongside: what it logs becomes a
    warning naming the file, and the frames stay exactly those OpenCV decodes. Without a
    `warnings` list, each warning is logged instead.

    Raises:
        FrameInputError: As decode_video, or (as_declared or complete) when fewer frames
            decode than declared.
    """
    check = stream_check.start(path)
    try:
        frames, decoded, declared = _decode(path, max_side, keep_declared=as_declared)
    except BaseException:
        check.cancel()
        raise
    found = []
    if declared > 0 and declared != decoded:
        if (as_declared or complete) and decoded < declared:
            check.cancel()
            raise FrameInputError(path, f"the {declared} frames its container declares",
                                  f"only {decoded} decodable (a truncated or damaged video)")
        used = (f"the first {declared} are used" if as_declared else
                f"all {decoded} decoded frames are used")
        found.append(f"{path}: {decoded} frames decode but its container "
                     f"declares {declared}; {used}")
    concealed = check.result()
    if concealed is not None:
        found.append(f"{path}: {concealed}; the frames are used as OpenCV decodes them, "
                     f"as an OpenCV reader sees them")
    for text in found:
        if warnings is not None:
            warnings.append(text)
        else:
            logging.warning("%s", text)
    return frames


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
