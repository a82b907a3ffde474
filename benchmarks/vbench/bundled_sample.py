"""The bundled sample: three synthetic prompts of our own in the official full-info shape
and five videos each, packed by //tools/fixtures:vbench_sample into the runner's
runfiles. Synthetic test data, never VBench's: scorecards made from it say so
(NOT_OFFICIAL_DATA: its suite is not the official VBench_full_info.json).
"""

import dataclasses
import pathlib

from benchmarks.common import bundled_archive

ARCHIVE = "tools/fixtures/vbench_sample.tar"
MODEL_NAME = "SyntheticPlanes"


@dataclasses.dataclass(frozen=True)
class BundledInputs:
    root: pathlib.Path
    videos_path: pathlib.Path
    full_info_json: pathlib.Path
    model_name: str


def extract(dest: pathlib.Path = None) -> BundledInputs:
    root = bundled_archive.extract(ARCHIVE, "worldeval-vbench-sample", dest)
    return BundledInputs(root, root / "videos", root / "full_info.json", MODEL_NAME)
