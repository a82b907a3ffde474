"""The catalog binary: the table, one benchmark, the docs page, and an unknown id."""

import os
import pathlib
import subprocess
import sys

from tools.catalog import catalog_lib
from tools.catalog import render


def _run(*args, cwd=None):
    srcdir = os.environ.get("TEST_SRCDIR")
    if srcdir:  # under Bazel: the py_binary from the runfiles (this test's data)
        command = [str(pathlib.Path(srcdir) / "worldeval" / "tools" / "catalog" / "catalog")]
    else:
        command = [sys.executable, "-S", str(pathlib.Path(__file__).with_name("catalog_main.py"))]
    env = dict(os.environ, BUILD_WORKING_DIRECTORY=str(cwd)) if cwd else None
    return subprocess.run(command + list(args), capture_output=True, text=True, timeout=120,
                          check=False, env=env)


def test_prints_the_table():
    done = _run()
    assert done.returncode == 0, done.stderr
    assert done.stdout == render.table(catalog_lib.load_catalog())


def test_one_benchmark():
    done = _run("--benchmark=memobench")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("### memobench\n")
    assert "BUNDLED_SAMPLE" not in done.stdout and "bundled sample" in done.stdout


def test_writes_the_docs_page_relative_to_the_working_directory(tmp_path):
    done = _run("--format=markdown", "--output=docs/catalog.md", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "docs" / "catalog.md").read_text(encoding="utf-8")
    assert page == render.markdown(catalog_lib.load_catalog())


def test_unknown_benchmark_exits_2_listing_the_valid_ids():
    done = _run("--benchmark=vbench3")
    assert done.returncode == 2
    assert "unknown benchmark 'vbench3'" in done.stderr
    assert "did you mean vbench" in done.stderr and "wrbench" in done.stderr


def test_json_is_the_data():
    done = _run("--format=json")
    assert done.returncode == 0, done.stderr
    assert '"id": "wrbench"' in done.stdout
