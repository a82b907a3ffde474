"""Test support (testonly): a disk that fills up during a run, without filling a disk.

`install(monkeypatch, fail_at=N)` replaces `open` in benchmarks/common/sample_store.py,
through which every per-sample store line, attachment and contract file of a run is
written (sample_store.atomic_file, SampleStore.append, outputs.RunOutputs). Write call
number N (counting every write() on a file opened for writing, from 1) writes half of its
text and raises OSError(ENOSPC) with no file name, as a real full disk does; the disk then
stays full: every later write raises, and flush() or close() of a file holding text it
could not write raises too, as Python's buffered files do. `fail_at=None` only counts the
writes (`FullDisk.writes`), to learn how many a clean run makes.

`check_each_write(monkeypatch, write, path)` is the test of one file writer (a benchmark's
official output file): `write()` on a disk that fills up at each of its writes in turn
must raise an OSError naming `path` and leave `path` as it was and no `.tmp`.
"""

import builtins
import errno
import os
import pathlib
from typing import Callable, Optional

from benchmarks.common import sample_store


def enospc() -> OSError:
    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


class FullDisk:
    """Counts the writes and fails them from write number `fail_at` on."""

    def __init__(self, fail_at: Optional[int] = None):
        self.fail_at = fail_at
        self.writes = 0
        self.full = False

    def _fails(self) -> bool:
        self.writes += 1
        if self.fail_at is not None and self.writes >= self.fail_at:
            self.full = True
        return self.full

    def open(self, file, mode="r", *args, **kwargs):
        real = builtins.open(file, mode, *args, **kwargs)
        return _File(real, self) if any(m in mode for m in "wax+") else real


class _File:
    """A file opened for writing on the FullDisk."""

    def __init__(self, real, disk: FullDisk):
        self._real, self._disk, self._unwritten = real, disk, False

    def write(self, data):
        if self._disk._fails():  # pylint: disable=protected-access
            self._real.write(data[:len(data) // 2])
            self._real.flush()
            self._unwritten = True
            raise enospc()
        return self._real.write(data)

    def flush(self):
        if self._unwritten:
            raise enospc()
        self._real.flush()

    def fileno(self):
        return self._real.fileno()

    @property
    def closed(self):
        return self._real.closed

    @property
    def name(self):
        return self._real.name

    def close(self):
        unwritten, self._unwritten = self._unwritten, False
        self._real.close()
        if unwritten:
            raise enospc()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def install(monkeypatch, fail_at: Optional[int] = None) -> FullDisk:
    """A FullDisk behind sample_store's `open` for the monkeypatch's lifetime."""
    disk = FullDisk(fail_at)
    monkeypatch.setattr(sample_store, "open", disk.open, raising=False)
    return disk


OLDER = b"an older version of the file\n"


def check_each_write(monkeypatch, write: Callable[[], object], path: os.PathLike) -> bytes:
    """Runs `write()`, which writes the file `path` (through sample_store.atomic_file),
    once on a roomy disk and then on a disk that fills up at each of its writes in turn,
    with no `path` there before and with an older one (OLDER) there. Each full-disk run
    must raise OSError(ENOSPC) naming `path` (what app_main turns into one line naming
    it, exit 2) and leave `path` as it was (absent, or OLDER: never a part of the new
    text) and no `<path>.tmp`; AssertionError says which write broke that. Returns the
    bytes of the clean write, to compare with the official writer's."""
    path = pathlib.Path(path)
    tmp = path.with_name(path.name + ".tmp")
    path.unlink(missing_ok=True)
    with monkeypatch.context() as mp:
        counted = install(mp)
        write()
    clean = path.read_bytes()
    if counted.writes == 0:
        raise AssertionError(f"{path}: not written through sample_store.atomic_file")
    for fail_at in range(1, counted.writes + 1):
        for before in (None, OLDER):
            path.unlink(missing_ok=True)
            if before is not None:
                path.write_bytes(before)
            with monkeypatch.context() as mp:
                install(mp, fail_at)
                try:
                    write()
                except OSError as e:
                    raised = e
                else:
                    raise AssertionError(f"{path}: a disk full from write {fail_at} of "
                                         f"{counted.writes} raised nothing")
            what = f"{path}, disk full from write {fail_at} of {counted.writes}"
            if raised.errno != errno.ENOSPC or raised.filename != str(path):
                raise AssertionError(f"{what}: raised {raised!r}, not ENOSPC naming the file")
            left = path.read_bytes() if path.exists() else None
            if left != before:
                raise AssertionError(f"{what}: left {left!r:.200}, not {before!r}")
            if tmp.exists():
                raise AssertionError(f"{what}: left {tmp}")
    path.write_bytes(clean)
    return clean
