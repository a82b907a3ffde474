"""`ruff check` (pyflakes rules: unused imports, undefined names, redefinitions, unused
variables) over every Python file of the repository, with the settings of ruff.toml.

The test reads the working tree the test's own source file lives in (not the runfiles),
so it sees every file without listing them as data; it is tagged `external` in its BUILD
file so that Bazel never serves a cached pass after a file changed.
"""

import os
import pathlib
import subprocess
import sys


def _workspace() -> pathlib.Path:
    here = pathlib.Path(os.path.realpath(__file__))
    root = here.parents[2]
    assert (root / "ruff.toml").is_file() and (root / "WORKSPACE").is_file(), root
    return root


def test_ruff_finds_nothing():
    root = _workspace()
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise",
         "--config", str(root / "ruff.toml"), str(root)],
        capture_output=True, text=True, check=False, cwd=root)
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]


def test_ruff_would_fail_on_an_unused_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n")
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--config",
         str(_workspace() / "ruff.toml"), str(bad)],
        capture_output=True, text=True, check=False)
    assert done.returncode == 1 and "F401" in done.stdout, done.stdout + done.stderr
