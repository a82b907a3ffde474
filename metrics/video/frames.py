"""Loading evaluation frames from frame folders and video files."""

import operator
import os
import pathlib
import re

import cv2
import numpy as np

from metrics.video.resize import check_max_side, resize_max_side

IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg")
VIDEO_EXTENSIONS = (".mp4", ".avi", ".mov", ".mkv")

_DIGIT_RUN = re.compile(r"[0-9]+")


class FrameInputError(ValueError):
    """A frame source is missing, malformed or unreadable.

    Attributes:
        path: The offending file or folder.
        expected: What the source should have been.
        found: What was found instead, or None.
    """

    def __init__(self, path, expected, found=None):
        self.path = path
        self.expected = expected
        self.found = found
        message = f"{path}: expected {expected}"
        if found is not None:
            message += f", found {found}"
        super().__init__(message.replace("\r", " ").replace("\n", " "))

    def __reduce__(self):
        return (type(self), (self.path, self.expected, self.found))


def _frame_number(path):
    """Returns the integer of the last run of digits in the file stem."""
    runs = _DIGIT_RUN.findall(path.stem)
    if not runs:
        raise FrameInputError(path, "a frame number in the name", "no digits")
    return int(runs[-1])


def list_frame_files(folder):
    """Lists the image frames of a folder in time order.

    Frames are ordered by the last run of digits in the file stem, e.g.
    `NewLevelSequence5.0012.jpg` is frame 12. The official code
    sorts names lexicographically, so both orders must agree.

    Args:
        folder: Folder of .png/.jpg/.jpeg frames (not searched recursively).

    Returns:
        The frame paths, sorted by frame number.

    Raises:
        FrameInputError: If the folder is missing, holds no image files, a
            name has no digits, two files share a frame number, or
            lexicographic order differs from numeric order.
    """
    folder = pathlib.Path(folder)
    expected = "a folder of .png/.jpg/.jpeg frames"
    if not folder.is_dir():
        found = "a file" if folder.exists() else "nothing"
        raise FrameInputError(folder, expected, found)
    files = [p for p in folder.iterdir()
             if p.suffix.lower() in IMAGE_EXTENSIONS and p.is_file()]
    if not files:
        raise FrameInputError(folder, expected, "no image files")
    by_number = {}
    for path in files:
        number = _frame_number(path)
        if number in by_number:
            pair = " and ".join(sorted([by_number[number].name, path.name]))
            found = f"{pair} are both frame {number}"
            raise FrameInputError(folder, "one file per frame number", found)
        by_number[number] = path
    ordered = [by_number[n] for n in sorted(by_number)]
    for earlier, later in zip(ordered, ordered[1:]):
        if earlier.name > later.name:
            raise FrameInputError(
                folder,
                "consistently zero-padded frame numbers",
                f"{later.name} sorts before {earlier.name}; lexicographic "
                "order (used by the official code) would scramble "
                "time",
            )
    return ordered


def read_image(path):
    """Reads an image as BGR uint8; gray and 4-channel images become BGR.

    Args:
        path: Image file path.

    Returns:
        Array of shape (H, W, 3) and dtype uint8.

    Raises:
        FrameInputError: If the file cannot be read or decoded.
    """
    image = cv2.imread(os.fspath(path), cv2.IMREAD_COLOR)
    if image is None:
        raise FrameInputError(path, "a readable PNG/JPEG image")
    return image


def read_frame_folder(folder, max_side=None):
    """Reads all frames of a folder into one array.

    Args:
        folder: Folder of image frames (see list_frame_files).
        max_side: If given, each frame is shrunk with resize_max_side.

    Returns:
        Array of shape (N, H, W, 3) and dtype uint8, BGR.

    Raises:
        FrameInputError: As list_frame_files/read_image, or on mixed sizes.
        ValueError: If max_side is not None and not a positive int.
    """
    if max_side is not None:
        check_max_side(max_side)
    frames = []
    first_shape = None
    first_name = None
    for path in list_frame_files(folder):
        frame = read_image(path)
        if first_shape is None:
            first_shape, first_name = frame.shape, path.name
        elif frame.shape != first_shape:
            want = f"{first_name}'s size {first_shape[1]}x{first_shape[0]}"
            found = f"{frame.shape[1]}x{frame.shape[0]}"
            raise FrameInputError(path, want, found)
        if max_side is not None:
            frame = resize_max_side(frame, max_side)
        frames.append(frame)
    return np.stack(frames)


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


def _frame_index(index):
    """Returns index as a non-negative Python int, else raises ValueError."""
    try:
        value = None if isinstance(index, bool) else operator.index(index)
    except TypeError:
        value = None
    if value is None or value < 0:
        raise ValueError(f"frame index must be an int >= 0, got {index!r}")
    return value


def read_video_frames(path, indices):
    """Returns native-resolution frames at the given 0-based indices.

    The video is decoded once, sequentially, keeping only the requested
    frames; seeking is avoided because it is inexact for some codecs.

    Args:
        path: Video file path.
        indices: Frame indices, in any order, possibly repeated.

    Returns:
        (H, W, 3) uint8 BGR arrays, one (a separate copy) per index given.

    Raises:
        ValueError: If an index is not a non-negative int.
        FrameInputError: If the video cannot be opened or an index is not
            below the number of decodable frames.
    """
    wanted = [_frame_index(index) for index in indices]
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
                kept[decoded] = frame
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
    return [kept[i].copy() for i in wanted]


def load_frames(source, max_side=None):
    """Loads frames from a frame folder or a video file.

    Args:
        source: A folder of image frames, or a .mp4/.avi/.mov/.mkv file.
        max_side: If given, each frame is shrunk with resize_max_side.

    Returns:
        Array of shape (N, H, W, 3) and dtype uint8, BGR.

    Raises:
        FrameInputError: If source is neither, or cannot be read.
        ValueError: If max_side is not None and not a positive int.
    """
    source = pathlib.Path(source)
    if source.is_dir():
        return read_frame_folder(source, max_side)
    if source.suffix.lower() in VIDEO_EXTENSIONS:
        return decode_video(source, max_side)
    found = "a file of another type" if source.exists() else "nothing"
    expected = "a frame folder or a .mp4/.avi/.mov/.mkv video"
    raise FrameInputError(source, expected, found)
