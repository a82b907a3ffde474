"""Finding model checkpoints, in DESIGN.md's order, and saying exactly what was loaded.

Order: an explicit path (a flag), then `--checkpoint_dir`, then the local caches (the
Hugging Face hub cache, torch's hub cache), then a download pinned by revision or by
digest, never with `--offline`. A checkpoint that cannot be found, or whose sha256
does not match, raises CheckpointUnavailable with the command that fetches it; the
caller reports its metric unavailable with that reason.
"""

import dataclasses
import hashlib
import os
import pathlib
from typing import Optional, Tuple


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
      license / size_bytes: for asset plans.
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

    def fetch_command(self, checkpoint_dir: Optional[str] = None) -> str:
        """A shell command that puts this checkpoint where the resolver looks."""
        target = checkpoint_dir or "<checkpoint_dir>"
        if self.hf_repo:
            files = "" if self.snapshot else f" {self.filename}"
            return (f"huggingface-cli download {self.hf_repo}{files} --revision "
                    f"{self.hf_revision} --local-dir {target}/{self.name}")
        return f"mkdir -p {target}/{self.name} && curl -L {self.url} -o {target}/{self.name}/{self.filename}"


@dataclasses.dataclass(frozen=True)
class ResolvedCheckpoint:
    spec: CheckpointSpec
    path: pathlib.Path   # the weight file (file specs) or the snapshot folder
    sha256: str          # of the weight file (`filename`)
    source: str          # "flag", "checkpoint_dir", "hf_cache", "torch_cache" or "download"
    revision: str        # the revision actually loaded (a hub commit when known)


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
        if spec.snapshot:
            folder = huggingface_hub.snapshot_download(spec.hf_repo, revision=spec.hf_revision)
            return pathlib.Path(folder) / spec.filename, pathlib.Path(folder).name
        path = huggingface_hub.hf_hub_download(spec.hf_repo, spec.filename,
                                               revision=spec.hf_revision)
        return pathlib.Path(path), pathlib.Path(path).parent.name
    import torch.hub  # pylint: disable=import-outside-toplevel
    target_dir = pathlib.Path(checkpoint_dir or _torch_home_checkpoints())
    target_dir.mkdir(parents=True, exist_ok=True)
    target = target_dir / spec.filename
    torch.hub.download_url_to_file(spec.url, str(target), hash_prefix=spec.sha256 or None)
    return target, spec.sha256


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
        if offline:
            raise CheckpointUnavailable(
                f"checkpoint {spec.name} ({spec.filename}) not found locally and --offline "
                f"forbids downloading; fetch it with: {spec.fetch_command(checkpoint_dir)}")
        try:
            path, revision = _download(spec, checkpoint_dir)
        except Exception as e:  # pylint: disable=broad-except  (any network/hub failure)
            raise CheckpointUnavailable(
                f"checkpoint {spec.name} ({spec.filename}) not found locally and the download "
                f"failed ({type(e).__name__}: {str(e)[:200]}); fetch it with: "
                f"{spec.fetch_command(checkpoint_dir)}") from e
        found = (path, "download", revision)
    weight, source, revision = found
    digest = sha256_of(weight)
    if spec.sha256 and not digest.startswith(spec.sha256):
        raise CheckpointUnavailable(
            f"{weight}: expected sha256 {spec.sha256}..., found {digest}: not the pinned "
            f"checkpoint {spec.name}; fetch it with: {spec.fetch_command(checkpoint_dir)}")
    path = weight.parent if spec.snapshot else weight
    return ResolvedCheckpoint(spec, path, digest, source, revision or spec.hf_revision or "")
