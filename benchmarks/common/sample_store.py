"""per_sample_scores.jsonl: each sample's result appended as soon as it is computed.

The file is the run's memory. A line is written and fsync'ed per sample, so a killed run
loses at most the sample in flight; `--resume` reads the file back and skips samples
already scored under the same settings (the config digest). A line that does not parse
(a torn last line from a killed write, or one corrupted in the middle) is dropped with a
warning and that sample recomputed.

A sample's attachments (SampleScore.attachments: blobs a family hands to a later step of
the run, e.g. MiraBench's per-video embeddings for FVD and FID) are not put in its line:
each is written, fsync'ed, to `<store>.attachments/<split/id>/<name>` before the line,
and the line records its sha256 under diagnostics "attachment_sha256/<name>". A reader
(`read_attachment`) gets the blob only when the file is there and its digest matches, so
a resumed run, a merged one (tools/merge copies the folder) and a Ray run read what the
worker computed, and an attachment lost or corrupted is simply computed again.

A full disk (ENOSPC) is the environment's: a failed append leaves the lines before it as
they were (a cut last line is skipped on resume), a failed rewrite (`atomic_file`, which
the contract files of benchmarks/common/outputs.py use too) leaves the file as it was and
no `.tmp`, and either raises an OSError naming the file (app_main: one line, exit 2).
"""

import contextlib
import hashlib
import json
import os
import pathlib
import urllib.parse
from typing import IO, Dict, Iterable, Iterator, Optional, Tuple

from absl import logging
from google.protobuf import json_format

from proto import schema
from proto import scorecard_pb2

CONFIG_DIGEST_KEY = "config_digest"
ATTACHMENT_KEY = "attachment_sha256/"  # diagnostics key prefix, + the attachment's name


def naming(path: os.PathLike, e: OSError) -> OSError:
    """`e` as an OSError that names `path`, the file being written: a failed write, flush
    or fsync (a full disk: ENOSPC) carries no file name of its own. Same errno, so the
    same OSError subclass (raise it `from e`)."""
    return OSError(e.errno, e.strerror or str(e), str(path))


@contextlib.contextmanager
def atomic_file(path: os.PathLike, binary: bool = False, fsync: bool = True) -> Iterator[IO]:
    """A file to write `path` through, whole or not at all: written to `<path>.tmp`
    (flushed and fsync'ed) and renamed over `path` when the block ends. When anything
    fails (a full disk) the .tmp is removed, `path` keeps what it held, and an OSError
    names `path`."""
    path = pathlib.Path(path)
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})
                  ) as f:
            yield f
            f.flush()
            if fsync:
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(e, OSError):
            raise naming(path, e) from e
        raise


def config_digest(settings: dict) -> str:
    """A short digest of the settings that change numbers (max_side, backends, ...)."""
    blob = json.dumps(settings, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


Key = Tuple[str, str]  # (split, sample_id): ids repeat across splits (MemoBench's "001")


def checkpoint_settings(refs: Iterable[scorecard_pb2.CheckpointRef]) -> list:
    """What a store's config digest records of the run's checkpoints: each one's metric
    and sha256 (or id@revision where none is known), so that a resume with another
    checkpoint file recomputes the samples instead of keeping values it did not make."""
    return sorted({(r.metric_id, r.sha256 or f"{r.id}@{r.revision}") for r in refs})


def key_of(sample: scorecard_pb2.SampleScore) -> Key:
    return (sample.split, sample.sample_id)


def attachments_dir(store_path: os.PathLike) -> pathlib.Path:
    """The folder of the store's attachments: `<store file name>.attachments` beside it."""
    path = pathlib.Path(store_path)
    return path.with_name(path.name + ".attachments")


def attachment_path(store_path: os.PathLike, key: Key, name: str) -> pathlib.Path:
    folder = urllib.parse.quote("/".join(key), safe="")
    return attachments_dir(store_path) / folder / urllib.parse.quote(name, safe="")


def read_attachment(store_path: os.PathLike, sample: scorecard_pb2.SampleScore,
                    name: str) -> Optional[bytes]:
    """The sample's attachment `name` as stored, or None when the row records none, the
    file is gone, or its sha256 is not the recorded one (logged: computed again)."""
    want = sample.diagnostics.get(ATTACHMENT_KEY + name)
    if not want:
        return None
    path = attachment_path(store_path, key_of(sample), name)
    try:
        blob = path.read_bytes()
    except OSError as e:
        logging.warning("%s: attachment unreadable (%s): computed again", path, e)
        return None
    if hashlib.sha256(blob).hexdigest() != want:
        logging.warning("%s: sha256 is not the one its row records: computed again", path)
        return None
    return blob


class SampleStore:
    """Append-only store of SampleScore messages, keyed by (split, sample id)."""

    def __init__(self, path: os.PathLike, digest: str, resume: bool, stored_only: bool = False):
        """`stored_only` (`--stored_only`, what `worldeval merge` runs): resume and keep
        failed samples too, since nothing is recomputed."""
        self.path = pathlib.Path(path)
        self.digest = digest
        self.stored_only = stored_only
        resume = resume or stored_only
        self._samples: Dict[Key, scorecard_pb2.SampleScore] = {}
        self.resumed = 0
        self.discarded_stale = 0
        self.discarded_corrupt = 0
        if resume and self.path.exists():
            for sample in self._read():
                if sample.diagnostics.get(CONFIG_DIGEST_KEY) == digest and (
                        stored_only or not sample.error):
                    self._samples[key_of(sample)] = sample
                else:
                    self.discarded_stale += 1
            self.resumed = len(self._samples)
        # Rewrite the kept samples (drops torn lines, stale settings and failed samples,
        # which a resumed run retries).
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._rewrite(list(self._samples.values()))

    def _rewrite(self, samples) -> None:
        """Rewrites the file from `samples` (atomic_file: on a full disk the file keeps its
        lines, no .tmp is left, and the OSError names it) and reopens it for appending."""
        with atomic_file(self.path) as f:
            for sample in samples:
                f.write(schema.to_json_line(sample))
        try:
            self._file = open(self.path, "a", encoding="utf-8")
        except OSError as e:
            raise naming(self.path, e) from e

    def put_in_order(self, keys: Iterable[Key]) -> None:
        """Rewrites the file with one line per sample, `keys` first in their order (then
        any other kept sample), so a fresh, a resumed and a merged run of the same
        samples leave the same file."""
        keys = [k for k in keys if k in self._samples]
        rest = [k for k in self._samples if k not in set(keys)]
        self._file.close()
        self._rewrite([self._samples[k] for k in keys + rest])

    def _read(self) -> Iterable[scorecard_pb2.SampleScore]:
        """The stored samples; a line that is not one (torn, or corrupted in the middle)
        is skipped with a warning, so its sample is recomputed."""
        with open(self.path, encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    if not line.endswith("\n"):
                        raise ValueError("the line is cut short (an interrupted write)")
                    yield json_format.Parse(line, scorecard_pb2.SampleScore())
                except (ValueError, json_format.ParseError) as e:
                    self.discarded_corrupt += 1
                    logging.warning("%s line %d is not a SampleScore (%s): skipped; its sample "
                                    "is recomputed", self.path, number, str(e).splitlines()[0])

    def __contains__(self, key: Key) -> bool:
        return key in self._samples

    def get(self, key: Key) -> scorecard_pb2.SampleScore:
        return self._samples[key]

    def discard(self, key: Key) -> None:
        """Forgets a kept sample (its inputs changed): it is recomputed and re-appended."""
        self._samples.pop(key, None)

    def append(self, sample: scorecard_pb2.SampleScore) -> None:
        """Records one sample durably (flush + fsync) before returning: its attachments
        first, then its line (which then records their digests, not their bytes)."""
        sample.diagnostics[CONFIG_DIGEST_KEY] = self.digest
        self._write_attachments(sample)
        try:
            self._file.write(schema.to_json_line(sample))
            self._file.flush()
            os.fsync(self._file.fileno())
        except OSError as e:  # a full disk: the lines before stay; a cut one is skipped on resume
            with contextlib.suppress(OSError):  # closed now, so that close() cannot fail again
                self._file.close()
            raise naming(self.path, e) from e
        self._samples[key_of(sample)] = sample

    def _write_attachments(self, sample: scorecard_pb2.SampleScore) -> None:
        for name, blob in sorted(sample.attachments.items()):
            path = attachment_path(self.path, key_of(sample), name)
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise naming(path.parent, e) from e
            with atomic_file(path, binary=True) as f:
                f.write(blob)
            sample.diagnostics[ATTACHMENT_KEY + name] = hashlib.sha256(blob).hexdigest()
        sample.ClearField("attachments")

    def attachment(self, key: Key, name: str) -> Optional[bytes]:
        """A kept sample's attachment (see read_attachment), None when there is none."""
        sample = self._samples.get(key)
        return read_attachment(self.path, sample, name) if sample is not None else None

    def samples(self) -> Iterable[scorecard_pb2.SampleScore]:
        return list(self._samples.values())

    def close(self) -> None:
        try:
            self._file.close()
        except OSError as e:
            raise naming(self.path, e) from e

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
