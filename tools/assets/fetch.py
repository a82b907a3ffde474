"""`assets fetch`: puts a benchmark's checkpoints where the resolver finds them, verified.

Where files land (metrics/checkpoints/resolver.py looks there):
- with --cache_dir=D: `D/<name>/<file>` for every checkpoint (its --checkpoint_dir
  layout; pass --checkpoint_dir=D to runners and preflight);
- without: hub files in the Hugging Face cache, URL files in torch's hub cache
  ($TORCH_HOME/hub/checkpoints), found with no flag at all.

A file already there is checked, never replaced: a wrong one is refused with its digest
and left for the user to move. A downloaded file that fails its check is removed.

A checkpoint whose weight file has no sha256 pinned in the profile is locked: its first
fetch (or a present file that passes the hub's listing) writes its name, hub id or URL,
the resolved commit, sha256 and size to worldeval_checkpoints.lock.json beside the files
(DIR with --cache_dir, else the Hugging Face or torch cache), and later fetches and runs
verify the file against it (metrics/checkpoints/lock.py); a file that changed is refused.
"""

import dataclasses
import os
import pathlib
from typing import Iterable, List, Optional

from benchmarks.common import preflight
from benchmarks.common import runtime_profiles
from metrics.checkpoints import lock
from metrics.checkpoints import resolver
from proto import runtime_profile_pb2
from tools.assets import hub
from tools.assets import transfer

FETCHED, PRESENT, REFUSED, FAILED = "fetched", "present", "refused", "failed"


@dataclasses.dataclass(frozen=True)
class FetchResult:
    checkpoint: str   # the resolver's name
    file: str
    status: str       # FETCHED, PRESENT, REFUSED or FAILED
    path: str = ""
    sha256: str = ""
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status in (FETCHED, PRESENT)


def torch_hub_checkpoints() -> pathlib.Path:
    """torch.hub.get_dir()/checkpoints, computed as the resolver does (no torch import)."""
    home = os.environ.get("TORCH_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "torch")
    return pathlib.Path(home) / "hub" / "checkpoints"


def selected_checkpoints(profile: runtime_profile_pb2.RuntimeProfile,
                         metric_ids: Optional[Iterable[str]] = None
                         ) -> List[runtime_profile_pb2.CheckpointRequirement]:
    """The checkpoints of the asked metrics; by default of those worldeval computes
    (a pending metric's weights are fetched only when it is asked for by name)."""
    if metric_ids is None:
        metric_ids = [m.metric_id for m in profile.metrics if not m.pending]
    return runtime_profiles.checkpoints(profile, metric_ids)


def _locked(result: FetchResult, spec, folder: pathlib.Path, revision: str,
            verified_by: str) -> FetchResult:
    """`result` of a weight file without a pinned digest, checked against its lock entry
    (written now if it has none); a file that differs from its entry is refused."""
    if not result.ok or spec.sha256 or result.file != spec.filename:
        return result
    try:
        entry = lock.record(folder, spec, revision, result.sha256,
                            pathlib.Path(result.path).stat().st_size, verified_by)
    except lock.LockError as e:
        return dataclasses.replace(result, status=REFUSED, detail=str(e))
    except OSError as e:
        return dataclasses.replace(result, detail=f"not locked: {folder / lock.LOCK_NAME}: {e}")
    return dataclasses.replace(result, detail=(
        f"no pinned digest: locked in {folder / lock.LOCK_NAME} at sha256 {entry.sha256}"
        + (f" ({entry.id}@{entry.revision})" if entry.revision else "")))


def _url_checkpoint(req, cache_dir: Optional[pathlib.Path]) -> FetchResult:
    spec = preflight.checkpoint_spec(req)
    folder = cache_dir if cache_dir else torch_hub_checkpoints()
    return _locked(_url_file(spec, cache_dir), spec, folder, "", lock.VERIFIED_BY_NONE)


def _url_file(spec, cache_dir: Optional[pathlib.Path]) -> FetchResult:
    dest = (cache_dir / spec.name if cache_dir else torch_hub_checkpoints()) / spec.filename
    result = dict(checkpoint=spec.name, file=spec.filename, path=str(dest))
    if dest.exists():
        digest = resolver.sha256_of(dest)
        if not transfer.digest_matches(digest, spec.sha256):
            return FetchResult(**result, status=REFUSED, sha256=digest, detail=(
                f"{dest} exists with sha256 {digest}, the profile pins {spec.sha256}: not "
                "overwritten; move it away and rerun"))
        return FetchResult(**result, status=PRESENT, sha256=digest)
    try:
        digest = transfer.download(spec.url, dest, transfer.sha256_check(spec.sha256))
    except (transfer.TransferError, OSError) as e:
        return FetchResult(**result, status=FAILED, detail=str(e))
    return FetchResult(**result, status=FETCHED, sha256=digest)


def _hub_file(req, spec, remote: hub.RemoteFile, dest: hub.Destination,
              endpoint: str) -> FetchResult:
    pinned = spec.sha256 if remote.path == spec.filename else ""
    result = dict(checkpoint=spec.name, file=remote.path)
    if pinned and remote.sha256 and not remote.sha256.startswith(pinned):
        return FetchResult(**result, status=FAILED, detail=(
            f"{req.id}@{dest.revision} lists {remote.path} with sha256 {remote.sha256}, the "
            f"profile pins {pinned}: not the pinned file, not downloaded"))
    found = dest.existing(remote.path)
    if found is not None:
        digest, wrong = hub.check_file(found, remote, pinned)
        if wrong:
            return FetchResult(**result, status=REFUSED, path=str(found), sha256=digest,
                               detail=f"{found} exists with {wrong}: not overwritten; move "
                                      "it away and rerun")
        return FetchResult(**result, status=PRESENT, path=str(found), sha256=digest)
    try:
        path, digest = hub.download(req.id, remote, pinned, dest, endpoint)
    except Exception as e:  # pylint: disable=broad-except  (any hub or network failure)
        return FetchResult(**result, status=FAILED, detail=f"{type(e).__name__}: {e}")
    return FetchResult(**result, status=FETCHED, path=str(path), sha256=digest)


def _hub_checkpoint(req, cache_dir: Optional[pathlib.Path], endpoint: str) -> List[FetchResult]:
    spec = preflight.checkpoint_spec(req)
    try:
        commit, files = hub.list_files(req.id, spec.hf_revision, endpoint)
    except Exception as e:  # pylint: disable=broad-except
        gated = " (gated: accept its licence on the hub and set HF_TOKEN)" if req.gated else ""
        return [FetchResult(spec.name, spec.filename, FAILED,
                            detail=f"listing {req.id}@{spec.hf_revision} failed{gated}: "
                                   f"{type(e).__name__}: {e}")]
    if spec.filename not in files:
        return [FetchResult(spec.name, spec.filename, FAILED,
                            detail=f"{req.id}@{commit} has no file {spec.filename}")]
    paths = hub.snapshot_paths(files, spec.filename) if spec.snapshot else [spec.filename]
    dest = hub.Destination(req.id, spec.hf_revision, cache_dir / spec.name if cache_dir else None)
    folder = cache_dir if cache_dir else lock.hf_cache_dir()
    return [_locked(_hub_file(req, spec, files[p], dest, endpoint), spec, folder, commit,
                    lock.VERIFIED_BY_HUB) for p in paths]


def fetch(profile: runtime_profile_pb2.RuntimeProfile, metric_ids: Optional[Iterable[str]],
          cache_dir: Optional[pathlib.Path], endpoint: str) -> List[FetchResult]:
    """Fetches (or finds and checks) every checkpoint of the selected metrics."""
    results = []
    for req in selected_checkpoints(profile, metric_ids):
        done = (_hub_checkpoint(req, cache_dir, endpoint) if req.id
                else [_url_checkpoint(req, cache_dir)])
        for r in done:
            print(f"{r.status:>8}  {r.checkpoint}/{r.file}" + (f"  {r.detail}" if r.detail else ""),
                  flush=True)
        results += done
    return results
