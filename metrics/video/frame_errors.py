"""What frame readers share: the input error, the decode-thread count, INTER_AREA resizes."""

import errno
import os
import pathlib

import cv2

VIDEO_EXTENSIONS = (".mp4", ".avi", ".mov", ".mkv")
WORKERS_ENV = "WORLDEVAL_FRAME_THREADS"
# Its earlier name, still read when WORKERS_ENV is unset (it clashed with the runners'
# --decode_workers, which counts samples decoded ahead, not threads per frame folder).
LEGACY_WORKERS_ENV = "WORLDEVAL_DECODE_WORKERS"
MAX_DEFAULT_WORKERS = 8


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


def broken_link(path):
    """What a symlink that leads nowhere is, in a FrameInputError's `found` words:
    "a symlink loop" or "a link to nothing (<its target>)"."""
    try:
        os.stat(path)
    except OSError as e:
        if e.errno == errno.ELOOP:
            return "a symlink loop"
    return f"a link to nothing ({os.readlink(path)})"


def not_a_file(path):
    """What is at `path` instead of a readable file (a broken link, a folder, nothing)."""
    path = pathlib.Path(path)
    if path.is_symlink() and not path.exists():
        return broken_link(path)
    if path.is_dir():
        return "a folder"
    return "not a regular file" if path.exists() else "no such file"


def default_workers():
    """Decode threads when none are asked for: $WORLDEVAL_FRAME_THREADS (or its earlier
    name $WORLDEVAL_DECODE_WORKERS), else min(8, os.cpu_count()).

    Raises:
        ValueError: If the environment variable is set but not a positive int.
    """
    name = next((n for n in (WORKERS_ENV, LEGACY_WORKERS_ENV)
                 if os.environ.get(n, "").strip()), None)
    if name is not None:
        value = os.environ[name].strip()
        try:
            workers = int(value)
        except ValueError:
            workers = 0
        if workers <= 0:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
        return workers
    return max(1, min(MAX_DEFAULT_WORKERS, os.cpu_count() or 1))


def check_workers(workers):
    """Returns workers (default_workers() for None); ValueError unless a positive int."""
    if workers is None:
        return default_workers()
    if isinstance(workers, bool) or not isinstance(workers, int) or workers <= 0:
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    return workers


def resize_area(frame, size):
    """cv2.INTER_AREA resize to (width, height), from native resolution, no crop."""
    return cv2.resize(frame, tuple(size), interpolation=cv2.INTER_AREA)
