"""The report opened in headless Chromium (Debian's `chromium`): no console message
(the page forbids every fetch by its Content-Security-Policy, so anything it would load
is logged), every panel in the rendered DOM, the DOM's numbers equal the scorecards', a
screenshot in the test outputs. Where chromium is not installed it fails under CI
(CI=true, passed through by .bazelrc's --test_env=CI: .ci/run installs chromium, so a CI
run without it has not run this test) and skips, saying why, anywhere else."""

import os
import pathlib
import shutil
import subprocess

import pytest

from tools.report import dom as dom_lib
from tools.report import group_panels
from tools.report import html_util
from tools.report import report_lib
from tools.report import runs as runs_lib
from tools.report import testdata

# Every benchmark's bundled-sample scorecard (the catalog's evidence files).
BENCHMARKS = ("memobench", "vmbench", "worldscore", "mirabench")


def _bundled(benchmark: str) -> pathlib.Path:
    return pathlib.Path(f"tools/catalog/evidence/{benchmark}/bundled_sample_scorecard.json")

_CANDIDATES = ("chromium", "chromium-browser", "/usr/bin/chromium")


def _under_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("true", "1", "yes")


def _chromium() -> str:
    found = next((shutil.which(c) for c in _CANDIDATES if shutil.which(c)), None)
    if not found:
        why = ("headless Chromium is not installed (looked for "
               f"{', '.join(_CANDIDATES)}; Debian: apt-get install -y chromium; "
               ".ci/run installs it)")
        if _under_ci():
            pytest.fail(f"CI={os.environ['CI']}: {why}; under CI this test must run")
        pytest.skip(why)
    return found


def _open(page: pathlib.Path, tmp_path: pathlib.Path, *extra):
    """(DOM after load, console lines) of `page`; the network is cut off too."""
    done = subprocess.run(
        [_chromium(), "--headless", "--no-sandbox", "--disable-gpu",
         "--disable-dev-shm-usage", "--hide-scrollbars", "--enable-logging=stderr", "--v=0",
         "--host-resolver-rules=MAP * ~NOTFOUND", f"--user-data-dir={tmp_path / 'profile'}",
         *extra, page.as_uri()],
        capture_output=True, text=True, timeout=60, check=False,
        env=dict(os.environ, HOME=str(tmp_path)))
    assert done.returncode == 0, done.stderr[-2000:]
    console = [l for l in done.stderr.splitlines() if ":CONSOLE" in l]
    return done.stdout, console


def _outputs(tmp_path: pathlib.Path) -> pathlib.Path:
    return pathlib.Path(os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR", tmp_path))


def _check(runs, name: str, tmp_path: pathlib.Path, panels) -> None:
    page = tmp_path / f"{name}.html"
    page.write_text(report_lib.render(runs, resamples=500), encoding="utf-8")
    shot = _outputs(tmp_path) / f"{name}.png"
    rendered, console = _open(page, tmp_path, "--dump-dom", "--window-size=1280,2400",
                              f"--screenshot={shot}")
    assert console == []
    dom = dom_lib.parse(rendered)
    assert dom.sections == list(panels)
    dom_lib.assert_headline_matches(dom, runs)
    dom_lib.assert_groups_match(dom, runs, group_panels.groups_of(runs))
    assert shot.stat().st_size > 10_000


def test_two_model_comparison_in_the_browser(tmp_path):
    runs = runs_lib.load_runs(testdata.write_pair(tmp_path / "runs"))
    _check(runs, "comparison_report", tmp_path, report_lib.panels_for(runs))


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_bundled_sample_report_in_the_browser(tmp_path, benchmark):
    runs = runs_lib.load_runs([_bundled(benchmark)])
    assert runs[0].card.benchmark_id == benchmark
    panels = report_lib.panels_for(runs)
    assert "comparison" not in panels
    assert ("groups" in panels) == (benchmark == "memobench")  # its fidelity by phase
    _check(runs, f"{benchmark}_bundled_sample_report", tmp_path, panels)


def test_the_console_check_sees_a_blocked_fetch(tmp_path):
    page = tmp_path / "fetches.html"
    page.write_text(html_util.page("fetches", '<img src="https://example.invalid/x.png">'),
                    encoding="utf-8")
    _, console = _open(page, tmp_path, "--dump-dom")
    assert any("Content Security Policy" in line for line in console), console
