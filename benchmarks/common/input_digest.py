"""Cheap digests of a sample's reference inputs, for the resume key.

A resumed sample is reused only when every input its numbers depend on is unchanged
(sample_loop's named digests). Generated files are hashed by content as they are decoded
(metrics.video.frames.load_frames_and_digest); reference files (ground-truth frames,
videos, camera files) are often large and read lazily, so they are digested here by
their stat: resolved path, size and modification time in nanoseconds. Rewriting a file,
or pointing the run at another data root, changes the digest; touching nothing does not.
Annotation values (a phase-sheet row, a prompt) go in `facts`.
"""

import hashlib
import json
import os
import pathlib
from typing import Iterable, Mapping


def _stat(path: pathlib.Path):
    resolved = pathlib.Path(os.path.abspath(path))
    try:
        st = path.stat()
    except OSError as e:  # unreadable now: part of the digest, so a later fix recomputes
        return [str(resolved), type(e).__name__]
    return [str(resolved), st.st_size, st.st_mtime_ns]


def files_digest(paths: Iterable[os.PathLike], facts: Mapping[str, object] = None) -> str:
    """sha256 over the stat (path, size, mtime_ns) of each file, in the order given,
    and the JSON of `facts` (sorted keys)."""
    blob = json.dumps({"files": [_stat(pathlib.Path(p)) for p in paths],
                       "facts": dict(facts or {})}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()
