"""The bundled sample: a small MemoBench-shaped dataset and one model's outputs.

Built deterministically by //tools/fixtures:memobench_sample (a tar in the runner's
runfiles) and unpacked on demand, so that `bazel run //benchmarks/memobench:run` works
with no flags. It is synthetic test data, never the MemoBench dataset: scorecards made
from it say so (NOT_OFFICIAL_DATA).
"""

import dataclasses
import hashlib
import os
import pathlib
import tarfile
import tempfile

from benchmarks.common import paths

ARCHIVE = "tools/fixtures/memobench_sample.tar"
MODEL_NAME = "ReferenceModel"


@dataclasses.dataclass(frozen=True)
class BundledInputs:
    root: pathlib.Path
    data_root: pathlib.Path
    generated_dir: pathlib.Path
    model_name: str


def extract(dest: pathlib.Path = None) -> BundledInputs:
    """Unpacks the sample (once per archive version) and says where its parts are.

    The default place is a folder of the system's temp dir named after the archive's
    digest, so repeated runs (and --resume) see the same paths.
    """
    archive = paths.runfile(ARCHIVE)
    if dest is None:
        digest = hashlib.sha256(archive.read_bytes()).hexdigest()[:12]
        dest = pathlib.Path(tempfile.gettempdir()) / f"worldeval-memobench-sample-{digest}"
    if not (dest / ".complete").exists():
        partial = pathlib.Path(tempfile.mkdtemp(prefix=dest.name + ".", dir=dest.parent))
        with tarfile.open(archive) as tar:
            tar.extractall(partial, filter="data")
        (partial / ".complete").touch()
        try:
            os.replace(partial, dest)
        except OSError:  # another run finished first; its copy is identical
            pass
    return BundledInputs(root=dest, data_root=dest / "data",
                         generated_dir=dest / "generated" / MODEL_NAME, model_name=MODEL_NAME)
