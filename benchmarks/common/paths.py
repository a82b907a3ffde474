"""Paths: the user's (relative to where `bazel run` was invoked) and runfiles."""

import os
import pathlib

from metrics import cli_support


user_path = cli_support.user_path


def runfile(relative: str) -> pathlib.Path:
    """A file of this repository shipped in the running target's runfiles (`data`)."""
    candidates = [pathlib.Path(__file__).parents[2] / relative]  # the runfiles root
    if os.environ.get("RUNFILES_DIR"):
        candidates.insert(0, pathlib.Path(os.environ["RUNFILES_DIR"]) / "worldeval" / relative)
    for candidate in candidates:
        if candidate.exists():
            return candidate
    raise FileNotFoundError(f"{relative} is not in this target's runfiles (add it to data)")
