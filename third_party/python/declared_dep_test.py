"""The other side of hermetic_test: a declared dep imports, at its locked version."""

import numpy

from third_party.python import lockfile


def test_declared_numpy_imports_at_locked_version():
    assert numpy.__version__ == lockfile.read_lock()["numpy"].version
    assert "pypi__numpy" in numpy.__file__


def test_lock_lists_the_pinned_torch_pair():
    lock = lockfile.read_lock()
    assert lock["torch"].version == "2.14.1"
    assert lock["torchvision"].version == "0.29.1"
    assert len(lockfile.lock_digest()) == 64
