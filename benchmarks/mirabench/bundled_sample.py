"""The bundled sample: two synthetic generated clips (parallax, static) and two GT clips
with meta CSVs in the official columns, packed by //tools/fixtures:mirabench_sample into
the runner's runfiles. Synthetic test data, never MiraBench's: scorecards made from it
say so (NOT_OFFICIAL_DATA).
"""

import dataclasses
import pathlib

from benchmarks.common import bundled_archive

ARCHIVE = "tools/fixtures/mirabench_sample.tar"
MODEL_NAME = "ParallaxFixture"


@dataclasses.dataclass(frozen=True)
class BundledInputs:
    root: pathlib.Path
    meta_csv: pathlib.Path
    generated_dir: pathlib.Path
    gt_meta_csv: pathlib.Path
    gt_dir: pathlib.Path
    model_name: str


def extract(dest: pathlib.Path = None) -> BundledInputs:
    root = bundled_archive.extract(ARCHIVE, "worldeval-mirabench-sample", dest)
    return BundledInputs(root, root / "meta_generated.csv", root / "generated",
                         root / "meta_gt.csv", root / "gt", MODEL_NAME)
