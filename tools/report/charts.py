"""Per-metric charts across runs, rendered by matplotlib as SVG text to inline in HTML.

Left: each run's value with its 95% interval (as the scorecard records it). Right, when
per-sample scores exist: each run's per-sample values (a box plot with the points over
it), the distribution behind the mean.
"""

import io
import os
import tempfile
from typing import List, Optional, Sequence

# matplotlib keeps its font cache in MPLCONFIGDIR; HOME may be read-only (a Bazel sandbox).
os.environ.setdefault("MPLCONFIGDIR", os.path.join(tempfile.gettempdir(), "worldeval-mpl"))
import matplotlib  # pylint: disable=wrong-import-position

matplotlib.use("Agg")
from matplotlib import figure as figure_lib  # pylint: disable=wrong-import-position

_RC = {"svg.fonttype": "none", "svg.hashsalt": "worldeval-report", "font.size": 9}
_COLOR = "#3465a4"
_MAX_POINTS = 400  # per run in a distribution panel, so that the SVG stays small


def _to_svg(fig: figure_lib.Figure) -> str:
    buf = io.StringIO()
    with matplotlib.rc_context(_RC):
        fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight")
    text = buf.getvalue()
    return text[text.index("<svg"):]  # drop the XML declaration and doctype


def metric_chart(title: str, unit: str, labels: Sequence[str],
                 values: Sequence[Optional[float]],
                 intervals: Sequence[Optional[tuple]],
                 samples: Optional[Sequence[List[float]]] = None) -> str:
    """SVG of one metric across runs; a run without a value is left out of the left panel.

    Args:
      title: the metric's name (and direction).
      unit: its unit, the x axis label.
      labels: the runs' labels, top to bottom.
      values: each run's value (None: unavailable).
      intervals: each run's (low, high) or None.
      samples: each run's per-sample values, or None for no distribution panel.
    """
    with matplotlib.rc_context(_RC):
        has_dist = bool(samples) and any(samples)
        fig = figure_lib.Figure(figsize=(8.0 if has_dist else 4.6, 0.5 + 0.42 * len(labels)))
        axes = fig.subplots(1, 2 if has_dist else 1, sharey=True, squeeze=False)[0]
        ys = list(range(len(labels)))[::-1]
        ax = axes[0]
        for y, value, ci in zip(ys, values, intervals):
            if value is None:
                ax.text(0.02, y, "unavailable", transform=ax.get_yaxis_transform(),
                        va="center", color="#888")
                continue
            err = None if ci is None else [[value - ci[0]], [ci[1] - value]]
            ax.errorbar([value], [y], xerr=err, fmt="o", color=_COLOR, capsize=4)
        ax.set_yticks(ys, labels=list(labels))
        ax.set_ylim(-0.6, len(labels) - 0.4)
        ax.set_xlabel(f"value ({unit}), 95% interval" if unit else "value, 95% interval")
        ax.grid(axis="x", alpha=0.3)
        if has_dist:
            _distribution(axes[1], ys, samples, unit)
        fig.suptitle(title, fontsize=10, x=0.02, ha="left")
        return _to_svg(fig)


def _distribution(ax, ys: List[int], samples: Sequence[List[float]], unit: str) -> None:
    present = [(y, s) for y, s in zip(ys, samples) if s]
    ax.boxplot([s for _, s in present], positions=[y for y, _ in present], orientation="horizontal",
               widths=0.5, showfliers=False, manage_ticks=False)
    for y, values in present:
        values = values[::-(-len(values) // _MAX_POINTS)]  # the box uses all; points thinned
        offsets = [((i * 0.618) % 1.0 - 0.5) * 0.3 for i in range(len(values))]
        ax.scatter(values, [y + o for o in offsets], s=8, alpha=0.5, color=_COLOR)
    ax.set_xlabel(f"per-sample values ({unit})" if unit else "per-sample values")
    ax.grid(axis="x", alpha=0.3)



def group_chart(title: str, columns: Sequence[str], rows: Sequence[tuple],
                labels: Sequence[str], cells) -> str:
    """SVG of a metric group: one panel per measure (row), its conditions (columns) on the
    x axis, each run's value with its 95% interval, runs side by side in each column.

    Args:
      title: the group's title.
      columns: the conditions, left to right.
      rows: (measure name, unit, higher_is_better) per panel.
      labels: the runs' labels (the legend).
      cells: cells[run][row][column] = (value, low, high), low/high None without an
        interval, or None where the metric has no value.
    """
    with matplotlib.rc_context(_RC):
        fig = figure_lib.Figure(figsize=(2.9 * len(rows) + 0.6, 2.9))
        axes = fig.subplots(1, len(rows), squeeze=False)[0]
        width = 0.7 / max(1, len(labels))
        colors = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
        for r, (ax, (name, unit, higher)) in enumerate(zip(axes, rows)):
            drawn = False
            for i, label in enumerate(labels):
                xs, ys, err = [], [], [[], []]
                for c in range(len(columns)):
                    cell = cells[i][r][c]
                    if cell is None:
                        continue
                    value, low, high = cell
                    xs.append(c + (i - (len(labels) - 1) / 2) * width)
                    ys.append(value)
                    err[0].append(0.0 if low is None else value - low)
                    err[1].append(0.0 if high is None else high - value)
                if xs:
                    drawn = True
                    ax.errorbar(xs, ys, yerr=err, fmt="o-", capsize=3, label=label,
                                color=colors[i % len(colors)])
            if not drawn:
                ax.text(0.5, 0.5, "unavailable", transform=ax.transAxes, ha="center",
                        color="#888")
            ax.set_xticks(range(len(columns)), labels=list(columns))
            ax.set_xlim(-0.5, len(columns) - 0.5)
            arrow = "↑" if higher else "↓"
            ax.set_title(f"{name} {arrow}", fontsize=9)
            ax.set_ylabel(f"{unit}, 95% interval" if unit else "95% interval")
            ax.grid(axis="y", alpha=0.3)
        fig.suptitle(title, fontsize=10, x=0.02, ha="left")
        fig.tight_layout()
        handles, names = axes[0].get_legend_handles_labels()
        for ax in axes[1:]:
            more = ax.get_legend_handles_labels()
            handles, names = (more if len(more[1]) > len(names) else (handles, names))
        if len(labels) > 1 and handles:  # below the panels, clear of the points
            fig.legend(handles, names, loc="upper center", ncol=min(4, len(names)),
                       bbox_to_anchor=(0.5, 0.0), fontsize=8, frameon=False)
        return _to_svg(fig)
