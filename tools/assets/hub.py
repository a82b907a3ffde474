"""Hugging Face hub files: huggingface_hub 2.4 for the protocol, tools/assets/transfer.py
for the bytes.

huggingface_hub gives the listing (`HfApi.model_info(files_metadata=True)`: each file's
sha256 if it is an LFS file, its git blob id otherwise), the file URL at the pinned
revision (`hf_hub_url`), its metadata (`get_hf_file_metadata`: the commit, the ETag that
names the cache blob, the CDN location) and the auth headers. Every endpoint follows
HF_ENDPOINT or --endpoint.

The bytes are not fetched with `hf_hub_download`: in the locked 2.4 its http_get resumes
a cut transfer only within the same call and only from the last whole 10 MiB chunk
(`iter_bytes(DOWNLOAD_CHUNK_SIZE)`), deletes its process-unique partial file when the
call fails (`_download_to_tmp_and_move`, PR #4228), and moves the file into place before
any digest is checked. transfer.py keeps the partial file across runs and checks before
the final name is taken.

Files land where metrics/checkpoints/resolver.py looks: with a local dir,
`<dir>/<path>`; otherwise the Hugging Face cache in huggingface_hub's own layout
(`_hf_hub_download_to_cache_dir`): `blobs/<etag>`, a relative symlink
`snapshots/<commit>/<path>` to it, and `refs/<revision>` holding the commit.
"""

import dataclasses
import hashlib
import os
import pathlib
import urllib.parse
from typing import Dict, List, Optional, Tuple

from metrics.checkpoints import resolver
from tools.assets import transfer

# Other serialisations of the same weights; a snapshot fetch takes only the profile's.
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".ckpt", ".h5", ".msgpack",
                   ".onnx", ".ot", ".gguf", ".tflite", ".mlmodel", ".npz", ".pkl")


@dataclasses.dataclass(frozen=True)
class RemoteFile:
    path: str
    size: int
    sha256: str      # LFS files; empty for regular ones
    git_sha1: str    # every file's git blob id


def list_files(repo: str, revision: str, endpoint: str) -> Tuple[str, Dict[str, RemoteFile]]:
    """(commit, {path: RemoteFile}) of `repo` at `revision`."""
    from huggingface_hub import HfApi  # pylint: disable=import-outside-toplevel
    info = HfApi(endpoint=endpoint).model_info(repo, revision=revision, files_metadata=True)
    files = {s.rfilename: RemoteFile(s.rfilename, s.size or 0,
                                     s.lfs.sha256 if s.lfs else "", s.blob_id or "")
             for s in info.siblings or ()}
    return info.sha or revision, files


def snapshot_paths(files: Dict[str, RemoteFile], weight_file: str) -> List[str]:
    """The weight file first, then every file that is not another weight file
    (configs, tokenizers, preprocessors: what from_pretrained reads beside it)."""
    rest = sorted(p for p in files if p != weight_file and not p.endswith(WEIGHT_SUFFIXES))
    return [weight_file] + rest


def git_blob_sha1(path: pathlib.Path) -> str:
    digest = hashlib.sha1(b"blob %d\0" % path.stat().st_size)
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_file(path: pathlib.Path, remote: RemoteFile, pinned: str = "") -> Tuple[str, str]:
    """(sha256, why it is not the expected file or "")."""
    digest = resolver.sha256_of(path)
    if pinned and not digest.startswith(pinned.lower()):
        return digest, f"sha256 {digest}, the profile pins {pinned}"
    if remote.sha256 and digest != remote.sha256:
        return digest, f"sha256 {digest}, the hub lists {remote.sha256}"
    if not remote.sha256 and remote.git_sha1 and git_blob_sha1(path) != remote.git_sha1:
        return digest, f"git blob id {git_blob_sha1(path)}, the hub lists {remote.git_sha1}"
    return digest, ""


@dataclasses.dataclass(frozen=True)
class Destination:
    """Where one hub file goes: `local_dir/<path>`, or the Hugging Face cache."""

    repo: str
    revision: str
    local_dir: Optional[pathlib.Path] = None

    def repo_cache(self) -> pathlib.Path:
        from huggingface_hub import constants  # pylint: disable=import-outside-toplevel
        from huggingface_hub.file_download import repo_folder_name  # pylint: disable=import-outside-toplevel
        return pathlib.Path(constants.HF_HUB_CACHE) / repo_folder_name(
            repo_id=self.repo, repo_type="model")

    def existing(self, path: str) -> Optional[pathlib.Path]:
        """The file already where the resolver would read it, if any."""
        if self.local_dir is not None:
            candidate = self.local_dir / path
            return candidate if candidate.is_file() else None
        from huggingface_hub import constants, try_to_load_from_cache  # pylint: disable=import-outside-toplevel
        found = try_to_load_from_cache(self.repo, path, cache_dir=constants.HF_HUB_CACHE,
                                       revision=self.revision)
        return pathlib.Path(found) if isinstance(found, str) else None

    def target(self, path: str, etag: str) -> pathlib.Path:
        """The file the bytes are written to (a cache blob is named by its ETag)."""
        if self.local_dir is not None:
            return self.local_dir / path
        return self.repo_cache() / "blobs" / etag

    def publish(self, path: str, commit: str, written: pathlib.Path) -> pathlib.Path:
        """Makes a cache blob visible as `snapshots/<commit>/<path>` at `revision`."""
        if self.local_dir is not None:
            return written
        pointer = self.repo_cache() / "snapshots" / commit / path
        pointer.parent.mkdir(parents=True, exist_ok=True)
        if not pointer.is_symlink():
            pointer.symlink_to(os.path.relpath(written, pointer.parent))
        if self.revision != commit:
            ref = self.repo_cache() / "refs" / self.revision
            ref.parent.mkdir(parents=True, exist_ok=True)
            tmp = ref.with_name(ref.name + ".tmp")
            tmp.write_text(commit)
            os.replace(tmp, ref)
        return pointer


def download(repo: str, remote: RemoteFile, pinned: str, dest: Destination,
             endpoint: str) -> Tuple[pathlib.Path, str]:
    """(path the resolver reads, sha256); resumes a partial file left by an earlier try.

    Raises:
      transfer.TransferError: interrupted (partial kept) or the wrong bytes (removed).
    """
    from huggingface_hub import get_hf_file_metadata, hf_hub_url  # pylint: disable=import-outside-toplevel
    from huggingface_hub.utils import build_hf_headers  # pylint: disable=import-outside-toplevel
    url = hf_hub_url(repo, remote.path, revision=dest.revision, endpoint=endpoint)
    meta = get_hf_file_metadata(url, endpoint=endpoint)
    headers = build_hf_headers()
    if urllib.parse.urlsplit(meta.location).netloc != urllib.parse.urlsplit(url).netloc:
        headers.pop("authorization", None)  # a signed CDN URL: the token stays home
    target = dest.target(remote.path, meta.etag)
    if target.exists():  # a cache blob another file or run already wrote
        digest, wrong = check_file(target, remote, pinned)
        if wrong:
            raise transfer.DigestMismatch(f"{target} holds {wrong}: not replaced")
    else:
        digest = transfer.download(meta.location, target,
                                   lambda p: check_file(p, remote, pinned), headers)
    return dest.publish(remote.path, meta.commit_hash, target), digest
