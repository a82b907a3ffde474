"""The bundled sample: three synthetic <index>.mp4 clips with known motion (a textured
square moving 4, 0 and 2 px per frame) and their prompts.json, packed by
//tools/fixtures:vmbench_sample into the runner's runfiles. Synthetic test data, never
VMBench's: scorecards made from it say so (NOT_OFFICIAL_DATA).
"""

import dataclasses
import pathlib

from benchmarks.common import bundled_archive

ARCHIVE = "tools/fixtures/vmbench_sample.tar"
MODEL_NAME = "SquareMotionFixture"


@dataclasses.dataclass(frozen=True)
class BundledInputs:
    video_dir: pathlib.Path
    prompt_manifest: pathlib.Path
    model_name: str


def extract(dest: pathlib.Path = None) -> BundledInputs:
    root = bundled_archive.extract(ARCHIVE, "worldeval-vmbench-sample", dest)
    return BundledInputs(root / "videos", root / "prompts.json", MODEL_NAME)
