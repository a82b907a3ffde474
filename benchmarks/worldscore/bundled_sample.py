"""The bundled sample: a synthetic WorldScore dataset and worldscore_output tree (two
static instances, one intra, and one dynamic; textured frames) packed by
//tools/fixtures:worldscore_sample into the runner's runfiles. Synthetic test data,
never WorldScore's: scorecards made from it say so (NOT_OFFICIAL_DATA).
"""

import dataclasses
import pathlib

from benchmarks.common import bundled_archive

ARCHIVE = "tools/fixtures/worldscore_sample.tar"
MODEL_NAME = "TextureShiftFixture"


@dataclasses.dataclass(frozen=True)
class BundledInputs:
    generated_root: pathlib.Path
    data_root: pathlib.Path
    model_name: str


def extract(dest: pathlib.Path = None) -> BundledInputs:
    root = bundled_archive.extract(ARCHIVE, "worldeval-worldscore-sample", dest)
    return BundledInputs(root / "worldscore_output", root / "data", MODEL_NAME)
