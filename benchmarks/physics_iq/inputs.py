"""What both Physics-IQ runners' flags resolve to: the descriptions file, the synthetic
tree they evaluate with no flags."""

import pathlib
import tempfile
from typing import Optional

from benchmarks.common import paths
from benchmarks.common.errors import InputError
from tools.fixtures import physics_iq_tree


def descriptions_file(given: Optional[str], real: pathlib.Path) -> pathlib.Path:
    """--descriptions_file, else <real>/descriptions.csv, else the repository's
    <real>/../descriptions/descriptions.csv (upstream's data folder sits in its clone)."""
    if given:
        return paths.user_path(given)
    candidates = (real / "descriptions.csv", real.parent / "descriptions" / "descriptions.csv")
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise InputError("--descriptions_file", "the repository's descriptions/descriptions.csv "
                     "(google-deepmind/physics-IQ-benchmark; looked for "
                     + " and ".join(str(c) for c in candidates) + ")", "no file given")


def synthetic_tree() -> physics_iq_tree.Tree:
    """The synthetic tree (tools/fixtures/physics_iq_tree.py, deterministic, ~1 MB) in a
    new temp folder: 3 scenarios of our own, models follows / diverges / freezes."""
    return physics_iq_tree.write_tree(
        pathlib.Path(tempfile.mkdtemp(prefix="worldeval-physics-iq-sample-")))
