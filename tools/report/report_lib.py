"""One self-contained static HTML report from one or many scorecards of one benchmark.

Styles and charts (matplotlib SVG) are inline and nothing is fetched when the file is
viewed. Panels (section ids): runs, headline, charts, comparison (two or more runs: each
run against the first), samples, unavailable, coverage, blockers, provenance.
"""

import pathlib
from typing import List, Sequence

from tools.report import bootstrap
from tools.report import compare_lib
from tools.report import html_util as h
from tools.report import metric_panels
from tools.report import run_panels
from tools.report import runs as runs_lib

PANELS = ("runs", "headline", "charts", "comparison", "samples", "unavailable", "coverage",
          "blockers", "provenance")
DEFAULT_WORST = 5


def comparisons(runs: Sequence[runs_lib.Run], seed: int,
                resamples: int) -> List[compare_lib.Comparison]:
    return [compare_lib.compare(runs[0], run, seed=seed, resamples=resamples)
            for run in runs[1:]]


def render(runs: Sequence[runs_lib.Run], seed: int = bootstrap.DEFAULT_SEED,
           resamples: int = bootstrap.DEFAULT_RESAMPLES, worst: int = DEFAULT_WORST) -> str:
    """The report's HTML for `runs` (as loaded by runs.load_runs)."""
    benchmark = runs[0].card.benchmark_id
    title = f"worldeval report: {benchmark}, " + ", ".join(run.label for run in runs)
    parts = [f"<h1>{h.esc(benchmark)}: {len(runs)} run{'s' if len(runs) > 1 else ''}</h1>",
             run_panels.runs_panel(runs), metric_panels.headline(runs),
             metric_panels.chart_panel(runs)]
    if len(runs) > 1:
        parts.append(metric_panels.comparison_panel(comparisons(runs, seed, resamples)))
    parts += [run_panels.samples_panel(runs, worst), metric_panels.unavailable_panel(runs),
              run_panels.coverage_panel(runs), run_panels.blockers_panel(runs),
              run_panels.provenance_panel(runs)]
    return h.page(title, "".join(parts))


def write_report(paths: Sequence[pathlib.Path], output: pathlib.Path, **kwargs) -> pathlib.Path:
    """Loads the scorecards (RunError when unusable), renders and writes the report."""
    runs = runs_lib.load_runs(paths)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(render(runs, **kwargs), encoding="utf-8")
    return output
