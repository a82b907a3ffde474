"""../shared/DESIGN.md's import rules, checked on every library file the runners and
importers carry: `metrics/` never imports `benchmarks/`; `benchmarks/common` imports no
benchmark; one benchmark never imports another (shared pieces move to benchmarks/common
or metrics/).

One exception, declared here with its reason rather than hidden: TRACKS. Physics-IQ
Verified is the second track of the same benchmark (google-deepmind/physics-IQ-benchmark's
`physiq/` package scores the same views with the same per-view computation, CSV and
score as the original `code/` track; ../shared/specs/physics-iq.md), so
benchmarks/physics_iq_verified builds on benchmarks/physics_iq's layout, per-view metrics
and scoring instead of copying them or moving Physics-IQ's rules into benchmarks/common,
where the map says no benchmark lives. The relation is one way: physics_iq imports
nothing of its Verified track.

The files come from the test's runfiles (every registered benchmark's `run` and `import`
binaries, so the check follows the catalog with no list of benchmarks here).
"""

import ast
import pathlib
from typing import Dict, Iterator, Set, Tuple

import pytest

# track package -> the package of the benchmark it is a track of
TRACKS: Dict[str, str] = {"physics_iq_verified": "physics_iq"}


def _root() -> pathlib.Path:
    """The runfiles tree's workspace folder (the source tree when run by hand)."""
    root = pathlib.Path(__file__).parent.parent
    assert (root / "benchmarks" / "common").is_dir(), f"no benchmarks/common beside {__file__}"
    return root


def _library_files(top: str) -> Iterator[pathlib.Path]:
    for path in sorted((_root() / top).rglob("*.py")):
        if not path.name.endswith("_test.py"):
            yield path


def _imported(path: pathlib.Path) -> Iterator[Tuple[int, str]]:
    """(line, dotted module) of every import in the file, `from a import b` as a.b too."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, node.module
            for alias in node.names:
                yield node.lineno, f"{node.module}.{alias.name}"


def _benchmark_of(module: str) -> str:
    """"vbench" for benchmarks.vbench.x, "" for anything outside benchmarks/."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "benchmarks" else ""


def _relative(path: pathlib.Path) -> str:
    return str(path.relative_to(_root()))


def test_the_runfiles_hold_the_benchmarks_and_metrics():
    packages = {p.parent.name for p in (_root() / "benchmarks").glob("*/runner.py")}
    assert {"vbench", "physics_iq", "physics_iq_verified", "vmbench"} <= packages
    assert any(_library_files("metrics"))


def test_metrics_never_import_benchmarks():
    found = [f"{_relative(p)}:{line} imports {m}" for p in _library_files("metrics")
             for line, m in _imported(p) if m == "benchmarks" or _benchmark_of(m)]
    assert not found, found


def test_benchmarks_common_imports_no_benchmark():
    found = [f"{_relative(p)}:{line} imports {m}"
             for p in _library_files("benchmarks/common") for line, m in _imported(p)
             if _benchmark_of(m) not in ("", "common")]
    assert not found, found


def _allowed(own: str) -> Set[str]:
    return {"", "common", own} | ({TRACKS[own]} if own in TRACKS else set())


def test_no_benchmark_imports_another_but_a_declared_track():
    found = []
    for path in _library_files("benchmarks"):
        own = path.relative_to(_root() / "benchmarks").parts[0]
        if own == "common" or path.parent == _root() / "benchmarks":
            continue
        found += [f"{_relative(path)}:{line} imports {m}" for line, m in _imported(path)
                  if _benchmark_of(m) not in _allowed(own)]
    assert not found, found


def test_tracks_are_real_and_one_way():
    root = _root() / "benchmarks"
    for track, parent in TRACKS.items():
        assert (root / track / "runner.py").is_file() and (root / parent / "runner.py").is_file()
        back = [f"{_relative(p)}:{line}" for p in (root / parent).rglob("*.py")
                for line, m in _imported(p) if _benchmark_of(m) == track]
        assert not back, back


def test_imports_are_absolute_so_the_checks_above_see_them():
    found = [f"{_relative(p)}:{node.lineno}" for top in ("metrics", "benchmarks")
             for p in _library_files(top)
             for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
             if isinstance(node, ast.ImportFrom) and node.level > 0]
    assert not found, found


def test_the_checker_sees_a_cross_import(tmp_path):
    path = tmp_path / "x.py"
    path.write_text("from benchmarks.vbench import card\nimport benchmarks.memobench.runner\n"
                    "from . import sibling\n")
    assert {_benchmark_of(m) for _, m in _imported(path)} == {"vbench", "memobench"}  # relative imports: none in the house
    path.write_text("def (")
    with pytest.raises(SyntaxError):  # an unreadable file fails the check, never passes it
        list(_imported(path))
