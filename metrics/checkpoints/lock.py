"""Checkpoint locks: a checkpoint without a pinned sha256 is recorded when it is first
fetched, and every later run verifies it against that record.

A CheckpointSpec with `sha256` is pinned in worldeval's code and needs no lock. For the
others (a hub file whose digest is published nowhere worldeval could read, a URL without
one), `tools:assets fetch`, and the resolver when it downloads the file itself, write one
CheckpointLockEntry (proto/manifest.proto: name, hub id or URL, file, the hub commit it
came from, sha256, size) to the lock file beside the files it locks:

  <checkpoint_dir>/worldeval_checkpoints.lock.json     files under --checkpoint_dir
  <Hugging Face hub cache>/worldeval_checkpoints.lock.json    hub files in that cache
  <torch hub>/checkpoints/worldeval_checkpoints.lock.json     URL files in torch's cache

An entry is never replaced: a file that no longer has the locked digest is an error that
names the file, both digests and what to do (delete the entry to accept a new upload on
purpose, or restore the file). A file given by an explicit flag path is the user's choice
and is not looked up in any lock. Concurrent writers each rewrite the whole file
atomically (a reader never sees half a file; of two first downloads racing, one entry
may be written twice).
"""

import datetime
import os
import pathlib
import tempfile
from typing import Optional, Tuple

from google.protobuf import json_format

from proto import manifest_pb2
from proto import schema

LOCK_NAME = "worldeval_checkpoints.lock.json"
VERIFIED_BY_HUB, VERIFIED_BY_NONE = "hub", "none"


class LockError(Exception):
    """The file differs from its lock entry, or the lock file is unreadable; the message
    names the files and says what to do."""


def hf_cache_dir() -> pathlib.Path:
    from huggingface_hub import constants  # pylint: disable=import-outside-toplevel
    return pathlib.Path(constants.HF_HUB_CACHE)


def torch_checkpoints_dir() -> pathlib.Path:
    """torch.hub.get_dir()/checkpoints, as the resolver computes it (no torch import)."""
    home = os.environ.get("TORCH_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "torch")
    return pathlib.Path(home) / "hub" / "checkpoints"


def folder_for(source: str, spec, checkpoint_dir: Optional[str]) -> Optional[pathlib.Path]:
    """The folder whose lock covers a file the resolver found at `source` ("flag",
    "checkpoint_dir", "hf_cache", "torch_cache", "download"); None for a flag path."""
    if source == "checkpoint_dir" and checkpoint_dir:
        return pathlib.Path(checkpoint_dir)
    if source == "hf_cache" or (source == "download" and spec.hf_repo):
        return hf_cache_dir()
    if source == "torch_cache":
        return torch_checkpoints_dir()
    if source == "download":  # the resolver downloads URL files into --checkpoint_dir
        return pathlib.Path(checkpoint_dir) if checkpoint_dir else torch_checkpoints_dir()
    return None


def checkpoint_id(spec) -> str:
    return spec.hf_repo or spec.url or spec.filename


def read(folder: pathlib.Path) -> manifest_pb2.CheckpointLock:
    """The lock in `folder` (empty when there is none).

    Raises:
      LockError: the file exists but is not a checkpoint lock.
    """
    path = pathlib.Path(folder) / LOCK_NAME
    if not path.is_file():
        return manifest_pb2.CheckpointLock()
    try:
        return schema.read_json(path, manifest_pb2.CheckpointLock)
    except (ValueError, OSError, json_format.ParseError) as e:
        raise LockError(f"{path}: not a readable checkpoint lock ({type(e).__name__}: "
                        f"{str(e)[:200]}); repair it, or delete it to lock every checkpoint "
                        "afresh on its next fetch") from e


def find(lock: manifest_pb2.CheckpointLock, spec) -> Optional[manifest_pb2.CheckpointLockEntry]:
    """The entry of `spec`'s weight file (same name, hub id or URL, and file), if any."""
    key = (spec.name, checkpoint_id(spec), spec.filename)
    return next((e for e in lock.entries if (e.name, e.id, e.file) == key), None)


def mismatch_text(weight: pathlib.Path, entry, found_sha256: str, lock_path: pathlib.Path) -> str:
    origin = f"{entry.id}@{entry.revision}" if entry.revision else entry.id
    return (f"{weight}: sha256 {found_sha256}, but the checkpoint lock {lock_path} recorded "
            f"{entry.sha256} for {entry.name} ({origin}, locked {entry.locked_at or '?'}): "
            "the file changed since it was first fetched. If you mean to use the new file, "
            f"delete the entry of {entry.name}/{entry.file} from {lock_path} (the next fetch "
            "locks it again); otherwise restore the locked file")


def verify(spec, weight: pathlib.Path, source: str, checkpoint_dir: Optional[str],
           digest: str) -> Tuple[Optional[manifest_pb2.CheckpointLockEntry], str]:
    """(the lock entry `weight` matched or None, the lock file that applies or "").

    Raises:
      LockError: `weight` differs from its entry, or the lock file is unreadable.
    """
    folder = folder_for(source, spec, checkpoint_dir)
    if folder is None:
        return None, ""
    lock_path = folder / LOCK_NAME
    entry = find(read(folder), spec)
    if entry is not None and entry.sha256 != digest:
        raise LockError(mismatch_text(weight, entry, digest, lock_path))
    return entry, str(lock_path)


def record(folder: pathlib.Path, spec, revision: str, digest: str, size_bytes: int,
           verified_by: str) -> manifest_pb2.CheckpointLockEntry:
    """Adds the entry of `spec`'s weight file to the lock in `folder` (created if need be)
    and returns it; an existing entry with the same digest is returned as it is.

    Raises:
      LockError: an entry with another digest exists (it is never replaced), or the lock
        file is unreadable.
      OSError: the lock file cannot be written (a read-only folder).
    """
    folder = pathlib.Path(folder)
    lock = read(folder)
    existing = find(lock, spec)
    if existing is not None:
        if existing.sha256 != digest:
            raise LockError(mismatch_text(folder / spec.filename, existing, digest,
                                          folder / LOCK_NAME))
        return existing
    entry = lock.entries.add(
        name=spec.name, id=checkpoint_id(spec), file=spec.filename, revision=revision,
        sha256=digest, size_bytes=size_bytes, verified_by=verified_by,
        locked_at=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=LOCK_NAME + ".", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(schema.to_json(schema.stamp(lock)))
        os.replace(tmp, folder / LOCK_NAME)
    except BaseException:
        pathlib.Path(tmp).unlink(missing_ok=True)
        raise
    return entry
