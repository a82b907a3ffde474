"""One self-contained static HTML report from one or many scorecards of one benchmark.

Styles and charts (matplotlib SVG) are inline and nothing is fetched when the file is
viewed. Panels (section ids): runs, headline, charts, groups (benchmarks whose metric
table declares groups: MemoBench's fidelity by phase), comparison (two or more runs: each
run against the baseline, the first unless `baseline` says), samples, unavailable,
coverage, blockers, provenance.
"""

import pathlib
from typing import List, Sequence

from benchmarks.common import errors
from tools.report import bootstrap
from tools.report import compare_lib
from tools.report import group_panels
from tools.report import html_util as h
from tools.report import metric_panels
from tools.report import run_panels
from tools.report import runs as runs_lib

PANELS = ("runs", "headline", "charts", "groups", "comparison", "samples", "unavailable",
          "coverage", "blockers", "provenance")
DEFAULT_WORST = 5


def panels_for(runs: Sequence[runs_lib.Run]) -> List[str]:
    """The section ids a report of `runs` has, in order."""
    skip = set()
    if not group_panels.groups_of(runs):
        skip.add("groups")
    if len(runs) < 2:
        skip.add("comparison")
    return [p for p in PANELS if p not in skip]


def comparisons(runs: Sequence[runs_lib.Run], seed: int, resamples: int,
                baseline: int = 0) -> List[compare_lib.Comparison]:
    """Every run but the baseline (an index into `runs`) compared with the baseline."""
    if not 0 <= baseline < len(runs):
        raise runs_lib.RunError(f"baseline {baseline + 1} is not one of the {len(runs)} runs")
    return [compare_lib.compare(runs[baseline], run, seed=seed, resamples=resamples)
            for i, run in enumerate(runs) if i != baseline]


def render(runs: Sequence[runs_lib.Run], seed: int = bootstrap.DEFAULT_SEED,
           resamples: int = bootstrap.DEFAULT_RESAMPLES, worst: int = DEFAULT_WORST,
           baseline: int = 0) -> str:
    """The report's HTML for `runs` (as loaded by runs.load_runs); with several runs, each
    is compared with `runs[baseline]`."""
    benchmark = runs[0].card.benchmark_id
    title = f"worldeval report: {benchmark}, " + ", ".join(run.label for run in runs)
    parts = [f"<h1>{h.esc(benchmark)}: {len(runs)} run{'s' if len(runs) > 1 else ''}</h1>",
             run_panels.runs_panel(runs), metric_panels.headline(runs),
             metric_panels.chart_panel(runs)]
    if group_panels.groups_of(runs):
        parts.append(group_panels.groups_panel(runs))
    if len(runs) > 1:
        parts.append(metric_panels.comparison_panel(
            comparisons(runs, seed, resamples, baseline)))
    parts += [run_panels.samples_panel(runs, worst), metric_panels.unavailable_panel(runs),
              run_panels.coverage_panel(runs), run_panels.blockers_panel(runs),
              run_panels.provenance_panel(runs)]
    return h.page(title, "".join(parts))


OUTPUT_EXPECTED = "a file path to write the HTML report to"


def check_output(output: pathlib.Path) -> pathlib.Path:
    """`output` when a report can be written there; errors.InputError (exit 2) naming it
    when it is a folder or lies under a file, before any scorecard is read."""
    if output.is_dir():
        raise errors.InputError(output, OUTPUT_EXPECTED, "a folder")
    above = next((p for p in output.parents if p.exists()), None)
    if above is not None and not above.is_dir():
        raise errors.InputError(output, OUTPUT_EXPECTED, f"{above} is a file")
    return output


def write_report(paths: Sequence[pathlib.Path], output: pathlib.Path, **kwargs) -> pathlib.Path:
    """Loads the scorecards, renders and writes the report; runs_lib.BAD_INPUT (RunError,
    errors.InputError naming the file) when a scorecard or `output` is unusable."""
    check_output(output)
    runs = runs_lib.load_runs(paths)
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(render(runs, **kwargs), encoding="utf-8")
    except OSError as e:  # unwritable, a full disk, a read-only file system
        raise errors.InputError(output, "a writable file path for the HTML report",
                                f"{type(e).__name__}: {e.strerror or e}") from e
    return output
