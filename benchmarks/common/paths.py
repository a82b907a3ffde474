"""Paths as the user typed them: relative to where `bazel run` was invoked."""

import os
import pathlib


def user_path(path: str) -> pathlib.Path:
    """Resolves `path` against the user's working directory, not Bazel's runfiles.

    `bazel run` starts binaries inside their runfiles tree and says where the user was
    in $BUILD_WORKING_DIRECTORY.
    """
    expanded = pathlib.Path(os.path.expanduser(path))
    if expanded.is_absolute():
        return expanded
    base = os.environ.get("BUILD_WORKING_DIRECTORY") or os.getcwd()
    return pathlib.Path(base) / expanded


def runfile(relative: str) -> pathlib.Path:
    """A file of this repository shipped in the running target's runfiles."""
    here = pathlib.Path(__file__).resolve().parents[2]  # the repository (runfiles) root
    candidates = [pathlib.Path(__file__).parents[2] / relative, here / relative]
    runfiles_dir = os.environ.get("RUNFILES_DIR")
    if runfiles_dir:
        candidates.insert(0, pathlib.Path(runfiles_dir) / "worldeval" / relative)
    for candidate in candidates:
        if candidate.exists():
            return candidate
    raise FileNotFoundError(f"{relative} is not in this target's runfiles (add it to data)")
