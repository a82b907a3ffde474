"""Provenance: which code, which locked environment, which inputs produced a scorecard."""

import datetime
import importlib.metadata
import os
import pathlib
import platform
import shlex
import socket
import subprocess
import sys

from benchmarks.common import executor as executor_lib
from proto import scorecard_pb2
from third_party.python import lockfile

WORLDEVAL_VERSION = "0.1.0"


def _git(args, cwd) -> str:
    try:
        out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                             timeout=10, check=True)
        return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def code_revision() -> tuple:
    """(commit, dirty) of the checkout `bazel run` was started from, if any."""
    root = os.environ.get("BUILD_WORKSPACE_DIRECTORY") or str(pathlib.Path(__file__).parents[2])
    commit = _git(["rev-parse", "HEAD"], root)
    if not commit:
        return "unknown (not run from a git checkout)", False
    dirty = bool(_git(["status", "--porcelain", "--untracked-files=no"], root))
    return commit, dirty


def package_versions() -> dict:
    """Installed versions of the locked distributions this target can import."""
    versions = {}
    for name in lockfile.read_lock():
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue  # not a dependency of this target
    return versions


def capture(inputs: dict) -> scorecard_pb2.Provenance:
    """Provenance of the running process; `inputs` names the input roots."""
    commit, dirty = code_revision()
    prov = scorecard_pb2.Provenance(
        code_revision=commit,
        code_dirty=dirty,
        lock_digest=lockfile.lock_digest(),
        python_version=platform.python_version(),
        worldeval_version=WORLDEVAL_VERSION,
    )
    prov.package_versions.update(package_versions())
    prov.inputs.update({k: str(v) for k, v in inputs.items() if v})
    return prov


def now_rfc3339() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def run_info(started_at: str, duration: float, device: str, flags: dict) -> scorecard_pb2.RunInfo:
    """The run's times, device and flags, plus the executor that scored its samples (and,
    for Ray, the actors and cluster resources: "ray_workers", "ray_cluster", ...)."""
    flags = {**flags, **executor_lib.record()}
    return scorecard_pb2.RunInfo(
        started_at=started_at,
        finished_at=now_rfc3339(),
        duration_seconds=round(duration, 3),
        device=device,
        flags=flags,
        command=shlex.join([pathlib.Path(sys.argv[0]).name] + sys.argv[1:]),
        hostname=socket.gethostname(),
    )
