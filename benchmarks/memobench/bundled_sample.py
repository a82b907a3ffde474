"""The bundled sample: a small MemoBench-shaped dataset and one model's outputs.

Built deterministically by //tools/fixtures:memobench_sample (a tar in the runner's
runfiles) and unpacked on demand, so that `bazel run //benchmarks/memobench:run` works
with no flags. It is synthetic test data, never the MemoBench dataset: scorecards made
from it say so (NOT_OFFICIAL_DATA).
"""

import dataclasses
import pathlib

from benchmarks.common import bundled_archive

ARCHIVE = "tools/fixtures/memobench_sample.tar"
MODEL_NAME = "ReferenceModel"


@dataclasses.dataclass(frozen=True)
class BundledInputs:
    root: pathlib.Path
    data_root: pathlib.Path
    generated_dir: pathlib.Path
    model_name: str


def extract(dest: pathlib.Path = None) -> BundledInputs:
    """Unpacks the sample (once per archive version, see bundled_archive) and says where
    its parts are."""
    dest = bundled_archive.extract(ARCHIVE, "worldeval-memobench-sample", dest)
    return BundledInputs(root=dest, data_root=dest / "data",
                         generated_dir=dest / "generated" / MODEL_NAME, model_name=MODEL_NAME)
