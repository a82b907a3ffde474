"""Provenance records the locked environment this target really imports."""

import numpy  # noqa: F401  # pylint: disable=unused-import  (a declared dep whose version must be recorded)

from benchmarks.common import provenance
from third_party.python import lockfile


def test_capture_records_lock_and_versions():
    prov = provenance.capture({"data_root": "/d", "unused": None})
    assert prov.lock_digest == lockfile.lock_digest()
    assert prov.package_versions["numpy"] == lockfile.read_lock()["numpy"].version
    assert "torch" not in prov.package_versions  # not a dependency of this target
    assert dict(prov.inputs) == {"data_root": "/d"}
    assert prov.python_version.startswith("3.11")
    assert prov.code_revision
