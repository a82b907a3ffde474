"""Reads requirements_lock.txt: the pinned versions and the lock's digest (provenance)."""

import dataclasses
import hashlib
import pathlib

LOCK_RUNFILE = "third_party/python/requirements_lock.txt"


@dataclasses.dataclass(frozen=True)
class LockedDistribution:
    name: str
    version: str
    sha256: str
    deps: tuple


def lock_path() -> pathlib.Path:
    """The lock file, found in the runfiles of the running target or in the source tree."""
    here = pathlib.Path(__file__).resolve()
    candidates = [pathlib.Path(__file__).parent / "requirements_lock.txt",
                                here.parent / "requirements_lock.txt"]
    for candidate in candidates:
        if candidate.exists():
            return candidate
    raise FileNotFoundError(f"{LOCK_RUNFILE} is not in this target's runfiles")


def parse_lock(text: str) -> dict:
    """Parses the lock's text into {name: LockedDistribution}."""
    entries = {}
    name = version = sha = None
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("# deps:"):
            if name is None or sha is None:
                raise ValueError(f"{LOCK_RUNFILE}: '# deps:' without a requirement and hash")
            deps = tuple(line[len("# deps:"):].split())
            entries[name] = LockedDistribution(name, version, sha, deps)
            name = version = sha = None
        elif not line or line.startswith("#"):
            continue
        elif line.startswith("--hash=sha256:"):
            sha = line[len("--hash=sha256:"):].rstrip(" \\")
        else:
            spec = line.rstrip(" \\")
            if "==" not in spec:
                raise ValueError(f"{LOCK_RUNFILE}: expected name==version, got {spec!r}")
            name, version = spec.split("==", 1)
    return entries


def read_lock() -> dict:
    return parse_lock(lock_path().read_text())


def lock_digest() -> str:
    """sha256 of the lock file: one value naming the whole third-party environment."""
    return hashlib.sha256(lock_path().read_bytes()).hexdigest()
