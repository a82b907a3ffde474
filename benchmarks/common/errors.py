"""Errors every runner maps to an exit code (DESIGN.md: 0 done, 2 bad input, 1 internal)."""

import errno
from typing import Optional

from metrics.cli_support import EXIT_BAD_INPUT, EXIT_INTERNAL_ERROR, EXIT_OK  # noqa: F401

# A full disk or a used-up quota: the machine's, never one sample's (app_main: exit 2).
FULL_DISK_ERRNOS = (errno.ENOSPC, errno.EDQUOT)


class InputError(ValueError):
    """Unusable input or configuration: the message names the path and what was expected."""

    def __init__(self, path, expected: str, found: str = ""):
        self.path = str(path)
        self.expected = expected
        self.found = found
        message = f"{self.path}: expected {expected}"
        if found:
            message += f", found {found}"
        super().__init__(message)


class DiskFull(OSError):
    """The disk filled up (ENOSPC, EDQUOT) while a sample was scored: the run stops there
    as it does when the store's own write fails (app_main: one line naming `filename`,
    exit 2; what was stored is kept and `--resume` goes on from it), instead of the
    sample becoming an error row. Built as OSError(errno, strerror, filename)."""


def full_disk(e: Optional[BaseException]) -> Optional[OSError]:
    """The OSError with errno ENOSPC or EDQUOT that `e` is, or that it was raised from or
    while handling (its __cause__ / __context__ chain: e.g. a metric's RuntimeError
    wrapping the failed write of its temp file); None when there is none."""
    seen = set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, OSError) and e.errno in FULL_DISK_ERRNOS:
            return e
        e = e.__cause__ or e.__context__
    return None
