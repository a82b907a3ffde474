"""What every worldeval binary shares at its edge: user paths and flag errors.

Lives at the bottom of the dependency graph so that metric binaries
(//metrics/<family>:<metric>) and benchmark runners use one implementation.
"""

import os
import pathlib
import sys

from absl import flags

EXIT_OK = 0
EXIT_INTERNAL_ERROR = 1
EXIT_BAD_INPUT = 2


def user_path(path) -> pathlib.Path:
    """Resolves `path` against the user's working directory, not Bazel's runfiles.

    `bazel run` starts binaries inside their runfiles tree and says where the user was
    in $BUILD_WORKING_DIRECTORY (unset when a binary is run directly).
    """
    expanded = pathlib.Path(os.path.expanduser(str(path)))
    if expanded.is_absolute():
        return expanded
    base = os.environ.get("BUILD_WORKING_DIRECTORY") or os.getcwd()
    return pathlib.Path(base) / expanded


def parse_flags(argv):
    """absl's flag parser for app.run(flags_parser=...): a bad or missing flag prints
    one line and exits 2 (absl alone exits 1)."""
    try:
        return flags.FLAGS(argv)
    except flags.Error as e:
        print(f"error: {e}\nPass --help to see the flags.", file=sys.stderr)
        sys.exit(EXIT_BAD_INPUT)
