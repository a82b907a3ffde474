"""Permission tests that run as root too (testonly; CI runs as root).

Root lists and reads a path whatever its mode, so `chmod 000` damage is not seen there.
`reads_as_non_root()` makes the listing and reading calls production code makes refuse,
meanwhile, what a non-root reader would be refused: a path with no read bit, or under a
folder with no search bit. They raise PermissionError (EACCES) as the OS does;
cv2.imread returns None, as OpenCV does on a file it cannot open. Calls on any other
path go through unchanged.
"""

import builtins
import contextlib
import errno
import io
import os
import pathlib

import cv2
import pytest


def no_access(path) -> bool:
    """True where a non-root reader would get EACCES (a file descriptor: False)."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        return False
    path = pathlib.Path(os.path.abspath(os.fsdecode(path)))
    try:
        if not path.stat().st_mode & 0o444:
            return True
        return any(not p.stat().st_mode & 0o111 for p in path.parents if p.is_dir())
    except OSError:
        return False


def _denied(path):
    raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fsdecode(path))


# (module, function, what it does on a refused path): os.listdir is what Path.iterdir
# calls, io.open what Path.open / read_bytes / read_text call.
_CALLS = ((os, "listdir", _denied), (os, "scandir", _denied), (io, "open", _denied),
          (builtins, "open", _denied), (cv2, "imread", lambda path: None))


@contextlib.contextmanager
def reads_as_non_root():
    """Meanwhile, the calls of _CALLS refuse what a non-root reader is refused. Yields
    the list of the paths refused (a test asserts its damage was reached)."""
    refused, mp = [], pytest.MonkeyPatch()

    def guarded(real, fail):
        def call(*args, **kwargs):
            path = args[0] if args else kwargs.get("file", kwargs.get("path", "."))
            if no_access(path):
                refused.append(os.fsdecode(path))
                return fail(path)
            return real(*args, **kwargs)
        return call

    for module, name, fail in _CALLS:
        mp.setattr(module, name, guarded(getattr(module, name), fail))
    try:
        yield refused
    finally:
        mp.undo()
