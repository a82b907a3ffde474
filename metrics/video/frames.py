"""Loading evaluation frames from frame folders and video files.

Frame folders can be decoded on a small thread pool (`workers`): OpenCV releases the
GIL while it decodes and resizes, so a 2-core machine decodes about twice as fast. The
frames (and digests) never depend on the number of workers.
"""

import concurrent.futures
import hashlib
import os
import pathlib
import re

import cv2
import numpy as np

from metrics.video.frame_errors import (  # noqa: F401  (re-exported: the frames API)
    MAX_DEFAULT_WORKERS, VIDEO_EXTENSIONS, WORKERS_ENV, FrameInputError, check_workers,
    default_workers, resize_area)
from metrics.video.resize import check_max_side, max_side_size
from metrics.video.video_files import (  # noqa: F401  (re-exported: the frames API)
    decode_video, read_video_frames, video_frame_count)

IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg")

_DIGIT_RUN = re.compile(r"[0-9]+")

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
        FrameInputError: If the folder is missing, holds no image files, an
            entry named like a frame is not a file (a dangling link, a
            directory), a name has no digits, two files share a frame number,
            or lexicographic order differs from numeric order.
    """
    folder = pathlib.Path(folder)
    expected = "a folder of .png/.jpg/.jpeg frames"
    if not folder.is_dir():
        found = "a file" if folder.exists() else "nothing"
        raise FrameInputError(folder, expected, found)
    files = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_EXTENSIONS)
    for path in files:  # never score a clip on fewer frames than it has
        if not path.is_file():
            found = ("a link to nothing" if path.is_symlink() and not path.exists()
                     else "a directory" if path.is_dir() else "not a regular file")
            raise FrameInputError(path, "a frame image file", found)
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


def decode_image(data, path):
    """Decodes encoded PNG/JPEG bytes exactly as `read_image` reads the file.

    Args:
        data: The file's bytes.
        path: The file they came from (named in errors).

    Returns:
        Array of shape (H, W, 3) and dtype uint8, BGR.

    Raises:
        FrameInputError: If the bytes do not decode.
    """
    image = None
    if data:
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise FrameInputError(path, "a readable PNG/JPEG image")
    return image


def _read_bytes(path):
    try:
        return pathlib.Path(path).read_bytes()
    except OSError:
        return b""  # reported as read_image reports an unreadable file


def _decode_into(path, out, size, first_shape, keep_bytes):
    """Decodes one file into `out` (resizing to `size` if given) unless its native
    shape differs from first_shape; returns (bytes or None, native shape)."""
    data = _read_bytes(path)
    frame = decode_image(data, path)
    if frame.shape == first_shape:
        if size is None:
            out[...] = frame
        else:
            resized = cv2.resize(frame, size, dst=out, interpolation=cv2.INTER_AREA)
            if not np.shares_memory(resized, out):  # OpenCV chose another buffer
                out[...] = resized
    return (data if keep_bytes else None), frame.shape


def _decode_folder(folder, max_side, workers, digest):
    """read_frame_folder's work on `workers` threads; updates `digest` (if given) with
    name + b"\0" + bytes of each file, in frame order.

    The first frame fixes the output shape; every frame is then decoded and resized
    (resize_max_side's rule) straight into its slot of one preallocated array.
    """
    if max_side is not None:
        check_max_side(max_side)
    workers = check_workers(workers)
    paths = list_frame_files(folder)
    keep = digest is not None
    first = _read_bytes(paths[0])
    frame = decode_image(first, paths[0])
    first_shape = frame.shape
    size = None if max_side is None else max_side_size(first_shape, max_side)
    if size is not None:
        frame = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
    frames = np.empty((len(paths),) + frame.shape, np.uint8)
    frames[0] = frame
    if keep:
        digest.update(paths[0].name.encode() + b"\0")
        digest.update(first)
    del first, frame

    def take(path, result):
        data, shape = result
        if shape != first_shape:
            want = f"{paths[0].name}'s size {first_shape[1]}x{first_shape[0]}"
            raise FrameInputError(path, want, f"{shape[1]}x{shape[0]}")
        if keep:
            digest.update(path.name.encode() + b"\0")
            digest.update(data)

    rest = list(enumerate(paths))[1:]
    if workers == 1 or len(rest) <= 1:
        for i, path in rest:
            take(path, _decode_into(path, frames[i], size, first_shape, keep))
        return frames
    pool = concurrent.futures.ThreadPoolExecutor(
        max_workers=min(workers, len(rest)), thread_name_prefix="frame-decode")
    try:
        futures = [pool.submit(_decode_into, path, frames[i], size, first_shape, keep)
                   for i, path in rest]
        for k, (_, path) in enumerate(rest):
            result, futures[k] = futures[k].result(), None  # bytes freed once hashed
            take(path, result)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return frames


def read_frame_files(paths, size=None, workers=None):
    """Reads the given image files (any order, repeats allowed) on `workers` threads.

    Args:
        paths: Image file paths.
        size: If given, (width, height): each image is resized to it with
            cv2.INTER_AREA (from native resolution; no crop) as it is read.
        workers: Decode threads (None: default_workers()).

    Returns:
        One (H, W, 3) uint8 BGR array per path, in the order given.

    Raises:
        FrameInputError: As read_image, for the first unreadable path in order.
        ValueError: If workers is not a positive int.
    """
    paths = list(paths)
    workers = check_workers(workers)

    def one(path):
        frame = read_image(path)
        return frame if size is None else resize_area(frame, size)

    if workers == 1 or len(paths) <= 1:
        return [one(path) for path in paths]
    pool = concurrent.futures.ThreadPoolExecutor(
        max_workers=min(workers, len(paths)), thread_name_prefix="frame-decode")
    try:
        futures = [pool.submit(one, path) for path in paths]
        return [future.result() for future in futures]
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def read_frame_folder(folder, max_side=None, workers=None):
    """Reads all frames of a folder into one array.

    Args:
        folder: Folder of image frames (see list_frame_files).
        max_side: If given, each frame is shrunk with resize_max_side.
        workers: Decode threads (None: default_workers()); the result is the same
            for any number.

    Returns:
        Array of shape (N, H, W, 3) and dtype uint8, BGR.

    Raises:
        FrameInputError: As list_frame_files/read_image, or on mixed sizes (the
            first offending file in frame order is named).
        ValueError: If max_side or workers is given and not a positive int.
    """
    return _decode_folder(folder, max_side, workers, None)


def _frame_source(source):
    """('folder' | 'video', path), else FrameInputError."""
    source = pathlib.Path(source)
    if source.is_dir():
        return "folder", source
    if source.suffix.lower() in VIDEO_EXTENSIONS:
        return "video", source
    found = "a file of another type" if source.exists() else "nothing"
    expected = "a frame folder or a .mp4/.avi/.mov/.mkv video"
    raise FrameInputError(source, expected, found)


def load_frames(source, max_side=None, workers=None):
    """Loads frames from a frame folder or a video file.

    Args:
        source: A folder of image frames, or a .mp4/.avi/.mov/.mkv file.
        max_side: If given, each frame is shrunk with resize_max_side.
        workers: Decode threads for a frame folder (None: default_workers());
            a video is decoded sequentially. The result does not depend on it.

    Returns:
        Array of shape (N, H, W, 3) and dtype uint8, BGR.

    Raises:
        FrameInputError: If source is neither, or cannot be read.
        ValueError: If max_side or workers is given and not a positive int.
    """
    kind, source = _frame_source(source)
    if kind == "folder":
        return read_frame_folder(source, max_side, workers)
    return decode_video(source, max_side)


def file_digest_update(digest, path, chunk_size=1 << 20):
    """Updates `digest` with path.name + b"\0" + the file's bytes (read in chunks)."""
    path = pathlib.Path(path)
    digest.update(path.name.encode() + b"\0")
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(chunk_size), b""):
            digest.update(chunk)


def source_digest(source):
    """The sha256 load_frames_and_digest returns, without decoding anything.

    Args:
        source: A folder of image frames, or a .mp4/.avi/.mov/.mkv file.

    Returns:
        Hex sha256 over name + b"\0" + bytes of each file in frame order (a video:
        of the one file).

    Raises:
        FrameInputError: If source is neither, or its frames cannot be listed.
    """
    kind, source = _frame_source(source)
    digest = hashlib.sha256()
    for path in (list_frame_files(source) if kind == "folder" else [source]):
        file_digest_update(digest, path)
    return digest.hexdigest()


def load_frames_and_digest(source, max_side=None, workers=None):
    """load_frames plus a sha256 of the input, reading each file once.

    The digest is a clip's input digest: sha256 over, for each file in
    frame order (list_frame_files), its name, a NUL byte and its bytes; for a video,
    over the video's name, a NUL byte and its bytes. A frame folder's files are read
    once and decoded from those same bytes.

    Args:
        source: A folder of image frames, or a .mp4/.avi/.mov/.mkv file.
        max_side: If given, each frame is shrunk with resize_max_side.
        workers: Decode threads for a frame folder (None: default_workers()).

    Returns:
        (frames (N, H, W, 3) uint8 BGR, hex sha256 digest).

    Raises:
        FrameInputError: If source is neither, or cannot be read.
        ValueError: If max_side or workers is given and not a positive int.
    """
    kind, source = _frame_source(source)
    digest = hashlib.sha256()
    if kind == "folder":
        frames = _decode_folder(source, max_side, workers, digest)
    else:
        frames = decode_video(source, max_side)
        file_digest_update(digest, source)
    return frames, digest.hexdigest()
