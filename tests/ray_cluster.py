"""A local two-CPU Ray for the tests of one process (pytest's `ray` fixture: starting
one costs seconds), and the per-sample rows of a store without timings."""

import atexit
import json
import os
import pathlib
import sys
import tempfile

import pytest

from benchmarks.common import executor as executor_lib
from benchmarks.common import sample_loop


@pytest.fixture(scope="session")
def ray():
    """The process's Ray, started on first use and shut down at exit (each test module
    that imports this fixture gets the same one)."""
    import ray as ray_module  # pylint: disable=import-outside-toplevel
    if not ray_module.is_initialized():
        # Workers are fresh interpreters: they import what this test imports. A short
        # temp dir: Ray's unix sockets must fit in 107 bytes.
        os.environ["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        temp = tempfile.mkdtemp(prefix="wr", dir="/tmp")
        os.environ["HOME"] = temp  # Ray keeps its auth token in ~/.ray (read-only in Bazel)
        ray_module.init(num_cpus=2, include_dashboard=False, _temp_dir=temp,
                        object_store_memory=80 * 1024 * 1024, log_to_driver=False)
        atexit.register(ray_module.shutdown)
    yield ray_module
    executor_lib.install(None)


def comparable(path: pathlib.Path):
    """A store's rows without their seconds (overall and per family)."""
    rows = []
    for line in path.read_text().splitlines():
        row = json.loads(line)
        row.pop("seconds", None)
        row["diagnostics"] = {k: v for k, v in row.get("diagnostics", {}).items()
                              if not k.startswith(sample_loop.MEASURED)}
        rows.append(row)
    return rows
