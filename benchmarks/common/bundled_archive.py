"""A runner's bundled sample: a tar in its runfiles, unpacked once per archive version.

The default place is a folder of the system's temp dir named after the archive's digest,
so repeated runs (and --resume) see the same paths; a run that loses the race to unpack
uses the other's identical copy.
"""

import hashlib
import os
import pathlib
import tarfile
import tempfile

from benchmarks.common import paths


def extract(archive_relative: str, prefix: str, dest: pathlib.Path = None) -> pathlib.Path:
    """Unpacks the runfile `archive_relative` (e.g. tools/fixtures/x.tar); returns the
    folder, `dest` or <tmp>/<prefix>-<digest12>."""
    archive = paths.runfile(archive_relative)
    if dest is None:
        digest = hashlib.sha256(archive.read_bytes()).hexdigest()[:12]
        dest = pathlib.Path(tempfile.gettempdir()) / f"{prefix}-{digest}"
    if not (dest / ".complete").exists():
        dest.parent.mkdir(parents=True, exist_ok=True)
        partial = pathlib.Path(tempfile.mkdtemp(prefix=dest.name + ".", dir=dest.parent))
        with tarfile.open(archive) as tar:
            tar.extractall(partial, filter="data")
        (partial / ".complete").touch()
        try:
            os.replace(partial, dest)
        except OSError:  # another run finished first; its copy is identical
            pass
    return dest
