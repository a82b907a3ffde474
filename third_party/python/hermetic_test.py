"""Proves the toolchain is CPython 3.11 and that only declared deps import.

This target declares pytest alone. numpy is installed in the system Python (and is in
the lock), yet it must not be importable here.
"""

import importlib
import sys

import pytest


def test_interpreter_is_cpython_311():
    assert sys.version_info[:2] == (3, 11)
    assert sys.implementation.name == "cpython"


def test_undeclared_numpy_does_not_import():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("numpy")


def test_system_site_packages_not_on_path():
    assert not [p for p in sys.path if p.endswith("site-packages")]
