"""Finding model checkpoints, in DESIGN.md's order, and saying exactly what was loaded.

Order: an explicit path (a flag), then `--checkpoint_dir`, then the local caches (the
Hugging Face hub cache, torch's hub cache), then a download pinned by revision or by
digest, never with `--offline` (nor with WORLDEVAL_OFFLINE=1 / HF_HUB_OFFLINE=1). A
checkpoint that cannot be found, or whose sha256 does not match, raises
CheckpointUnavailable with one line saying why and the command that fetches it; the
caller reports its metric unavailable with that reason.

Offline without saying so costs seconds, not retries: before the first download from a
host, reachability.probe() asks once per process whether that host (HF_ENDPOINT for hub
specs, the URL's host otherwise) answers; when it does not, nothing is downloaded. A hub
download first asks for the file's metadata (or the repository's commit) once, with the
hub's etag timeout and without the hub client's retries, so a failing hub fails fast too.

Which pin a file is checked against (ResolvedCheckpoint.pin, the scorecard's
CheckpointRef.pin):
- "sha256": the spec pins a digest, published upstream and written in worldeval's code
  (metrics/<family>/pins.py); a file that differs is refused. Only this makes a
  checkpoint digest-pinned (CheckpointRef.pinned_digest_matched, and with it a backend's
  digest_pinned and leaderboard eligibility).
- "lock": no digest is pinned; the file matched the entry its first fetch wrote to a local
  checkpoint lock (metrics/checkpoints/lock.py); a file that differs is refused. A lock
  pins against change, not against the official upload: it proves this is the file this
  machine first fetched (from the recorded hub commit), not that it is the file everybody
  else scores with, nor that the first fetch got the official bytes. Two researchers'
  locks can differ, so a locked checkpoint is not digest-pinned. To make it so, compare
  the locked sha256 with the upload's published digest (the hub's LFS oid) and pin it in
  the spec.
- "": nothing to compare (no pin and no lock entry, or an explicit flag path without a
  pinned digest); the sha256 is recorded only.
A file the resolver downloads itself is locked as `tools:assets fetch` would lock it.
"""

import dataclasses
import hashlib
import os
import pathlib
from typing import Optional, Tuple

from metrics.checkpoints import lock
from metrics.checkpoints import reachability
from metrics.checkpoints import url_download

OFFLINE_ENV = ("WORLDEVAL_OFFLINE", "HF_HUB_OFFLINE")


def size_text(size: int, approx: int = 0) -> str:
    """"2.6 GB", "~4.0 GB estimated from its official state dict" or "size ?"."""
    if not size and approx:
        return f"~{size_text(approx)} estimated from its official state dict"
    if not size:
        return "size ?"
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return ""


@dataclasses.dataclass(frozen=True)
class CheckpointSpec:
    """Where a checkpoint comes from. Either a file (`filename`) or a hub snapshot.

    Attributes:
      name: short id, also the sub-folder looked for under --checkpoint_dir.
      filename: the weight file; for a snapshot, the file whose presence marks it.
      hf_repo / hf_revision: Hugging Face repository and pinned revision.
      snapshot: True when the checkpoint is a whole hub repository (config + weights).
      url: a direct download URL (e.g. torchvision's weights).
      sha256: the expected digest of `filename`, or a prefix of it (torchvision names
        files by their digest's first 8 hex digits); empty when not known yet.
      license / size_bytes: for asset plans; approx_size_bytes when the size is only
        estimated (from the official state dict's tensors).
    """

    name: str
    filename: str
    hf_repo: str = ""
    hf_revision: str = "main"
    snapshot: bool = False
    url: str = ""
    sha256: str = ""
    license: str = ""
    size_bytes: int = 0
    approx_size_bytes: int = 0

    def fetch_command(self, checkpoint_dir: Optional[str] = None) -> str:
        """A shell command that puts this checkpoint where the resolver looks."""
        target = checkpoint_dir or "<checkpoint_dir>"
        if self.hf_repo:
            files = "" if self.snapshot else f" {self.filename}"
            return (f"huggingface-cli download {self.hf_repo}{files} --revision "
                    f"{self.hf_revision} --local-dir {target}/{self.name}")
        return f"mkdir -p {target}/{self.name} && curl -L {self.url} -o {target}/{self.name}/{self.filename}"


def spec_from_record(record) -> CheckpointSpec:
    """The spec a checkpoint record states (a runtime profile's CheckpointRequirement, or
    anything with its fields: name, id, revision, file, snapshot, url, sha256, license,
    size_bytes, approx_size_bytes), so that a record and its spec look in the same places.
    Not a pin: pins are the specs in metrics/<family>/pins.py."""
    name = record.name or (record.id.rsplit("/", 1)[-1] if record.id else record.file)
    return CheckpointSpec(
        name=name, filename=record.file, hf_repo=record.id,
        hf_revision=record.revision or "main", snapshot=record.snapshot, url=record.url,
        sha256=record.sha256.lower(), license=record.license, size_bytes=record.size_bytes,
        approx_size_bytes=record.approx_size_bytes)


@dataclasses.dataclass(frozen=True)
class ResolvedCheckpoint:
    spec: CheckpointSpec
    path: pathlib.Path   # the weight file (file specs) or the snapshot folder
    sha256: str          # of the weight file (`filename`)
    source: str          # "flag", "checkpoint_dir", "hf_cache", "torch_cache" or "download"
    revision: str        # the revision actually loaded (a hub commit when known)
    pin: str = ""        # "sha256", "lock" or "" (see the module docstring)
    lock_file: str = ""  # the checkpoint lock that applies to the file, if any


class CheckpointUnavailable(Exception):
    """The checkpoint is missing or wrong; the message says why and how to fetch it."""


def sha256_of(path: pathlib.Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _weight_file(spec: CheckpointSpec, path: pathlib.Path) -> Optional[pathlib.Path]:
    """The weight file inside `path` (a file or a folder), or None."""
    if path.is_file():
        return path
    for candidate in (path / spec.filename, path / spec.name / spec.filename):
        if candidate.is_file():
            return candidate
    return None


def _hf_cache(spec: CheckpointSpec) -> Optional[Tuple[pathlib.Path, str]]:
    if not spec.hf_repo:
        return None
    from huggingface_hub import try_to_load_from_cache  # pylint: disable=import-outside-toplevel
    found = try_to_load_from_cache(spec.hf_repo, spec.filename, revision=spec.hf_revision)
    if not isinstance(found, str):
        return None
    path = pathlib.Path(found)
    return path, path.parent.name  # .../snapshots/<commit>/<filename>


def _torch_cache(spec: CheckpointSpec) -> Optional[pathlib.Path]:
    if not spec.url:
        return None
    torch_home = os.environ.get("TORCH_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "torch")
    path = pathlib.Path(torch_home) / "hub" / "checkpoints" / spec.filename
    return path if path.is_file() else None


def _download(spec: CheckpointSpec, checkpoint_dir: Optional[str]) -> Tuple[pathlib.Path, str]:
    if spec.hf_repo:
        import huggingface_hub  # pylint: disable=import-outside-toplevel
        from huggingface_hub import constants  # pylint: disable=import-outside-toplevel
        endpoint = reachability.hf_endpoint()  # read now: the hub reads it once, at import
        timeout = constants.HF_HUB_ETAG_TIMEOUT  # env HF_HUB_ETAG_TIMEOUT, default 10 s
        # One metadata request without retries: when it fails, the hub's own download
        # would retry it five times (backoff up to 8 s, 60 s timeouts) before giving up.
        if spec.snapshot:
            huggingface_hub.HfApi(endpoint=endpoint).repo_info(
                spec.hf_repo, revision=spec.hf_revision, timeout=timeout)
            folder = huggingface_hub.snapshot_download(
                spec.hf_repo, revision=spec.hf_revision, endpoint=endpoint, etag_timeout=timeout)
            return pathlib.Path(folder) / spec.filename, pathlib.Path(folder).name
        huggingface_hub.get_hf_file_metadata(
            huggingface_hub.hf_hub_url(spec.hf_repo, spec.filename, revision=spec.hf_revision,
                                       endpoint=endpoint),
            timeout=timeout, endpoint=endpoint, retry_on_errors=False)
        path = huggingface_hub.hf_hub_download(spec.hf_repo, spec.filename,
                                               revision=spec.hf_revision, endpoint=endpoint,
                                               etag_timeout=timeout)
        return pathlib.Path(path), pathlib.Path(path).parent.name
    target_dir = pathlib.Path(checkpoint_dir or _torch_home_checkpoints())
    target_dir.mkdir(parents=True, exist_ok=True)
    target = target_dir / spec.filename
    url_download.download(spec.url, target, spec.sha256)
    return target, spec.sha256


def _source_url(spec: CheckpointSpec) -> str:
    """The URL whose host a download of `spec` contacts first."""
    return reachability.hf_endpoint() if spec.hf_repo else spec.url


def _offline_env() -> str:
    """The env var that forbids downloading (e.g. "HF_HUB_OFFLINE=1"), or ""."""
    for name in OFFLINE_ENV:
        if os.environ.get(name, "").strip().lower() in ("1", "true", "yes"):
            return f"{name}={os.environ[name]}"
    return ""


def _first_line(error: BaseException) -> str:
    """`Type: first non-empty line of the message`, whole (hub messages run to 5 lines)."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__


def _torch_home_checkpoints() -> str:
    torch_home = os.environ.get("TORCH_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "torch")
    return os.path.join(torch_home, "hub", "checkpoints")


def resolve(spec: CheckpointSpec, explicit_path: Optional[str] = None,
            checkpoint_dir: Optional[str] = None, offline: bool = False) -> ResolvedCheckpoint:
    """Finds `spec` (see the module docstring); raises CheckpointUnavailable."""
    found = None
    if explicit_path:
        weight = _weight_file(spec, pathlib.Path(explicit_path))
        if weight is None:
            raise CheckpointUnavailable(
                f"{explicit_path}: expected the checkpoint {spec.filename} ({spec.name}), "
                f"found nothing; fetch it with: {spec.fetch_command(checkpoint_dir)}")
        found = (weight, "flag", "")
    if found is None and checkpoint_dir:
        weight = _weight_file(spec, pathlib.Path(checkpoint_dir))
        if weight is not None:
            found = (weight, "checkpoint_dir", "")
    if found is None:
        cached = _hf_cache(spec)
        if cached:
            found = (cached[0], "hf_cache", cached[1])
    if found is None:
        cached = _torch_cache(spec)
        if cached:
            found = (cached, "torch_cache", "")
    if found is None:
        missing = f"checkpoint {spec.name} ({spec.filename}) not found locally and"
        fetch = f"fetch it with: {spec.fetch_command(checkpoint_dir)}"
        if offline:
            raise CheckpointUnavailable(f"{missing} --offline forbids downloading; {fetch}")
        if _offline_env():
            raise CheckpointUnavailable(
                f"{missing} the download failed ({_offline_env()} forbids downloading); {fetch}")
        try:
            verdict = reachability.probe(_source_url(spec))
        except ValueError:  # not an http(s) URL: the download below says what is wrong
            verdict = None
        if verdict is not None and not verdict.reachable:
            raise CheckpointUnavailable(f"{missing} {verdict.describe()}; {fetch}")
        try:
            path, revision = _download(spec, checkpoint_dir)
        except Exception as e:  # pylint: disable=broad-except  (any network/hub failure)
            raise CheckpointUnavailable(
                f"{missing} the download failed ({_first_line(e)}); {fetch}") from e
        found = (path, "download", revision)
    weight, source, revision = found
    digest = sha256_of(weight)
    if spec.sha256 and not digest.startswith(spec.sha256):
        raise CheckpointUnavailable(
            f"{weight}: expected sha256 {spec.sha256}..., found {digest}: not the pinned "
            f"checkpoint {spec.name}; fetch it with: {spec.fetch_command(checkpoint_dir)}")
    pin, lock_file = "sha256", ""
    if not spec.sha256:
        entry, lock_file = _lock_entry(spec, weight, source, revision, digest, checkpoint_dir)
        pin = "lock" if entry is not None else ""
        revision = revision or (entry.revision if entry is not None else "")
    path = weight.parent if spec.snapshot else weight
    return ResolvedCheckpoint(spec, path, digest, source, revision or spec.hf_revision or "",
                              pin, lock_file)


def _lock_entry(spec: CheckpointSpec, weight: pathlib.Path, source: str, revision: str,
                digest: str, checkpoint_dir: Optional[str]):
    """(lock entry or None, lock file or "") of an unpinned file: verified against its
    entry, or locked now when the resolver has just downloaded it.

    Raises:
      CheckpointUnavailable: the file differs from its entry (or the lock is unreadable).
    """
    try:
        entry, lock_file = lock.verify(spec, weight, source, checkpoint_dir, digest)
        if entry is None and source == "download" and lock_file:
            entry = lock.record(pathlib.Path(lock_file).parent, spec, revision, digest,
                                weight.stat().st_size, lock.VERIFIED_BY_NONE)
    except lock.LockError as e:
        raise CheckpointUnavailable(
            f"{e}; fetch it with: {spec.fetch_command(checkpoint_dir)}") from e
    except OSError:  # a lock that cannot be written (a read-only cache): left unlocked
        entry = None
    return entry, lock_file
