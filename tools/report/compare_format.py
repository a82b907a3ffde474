"""A comparison as text: a fixed-width table for the terminal, markdown, or JSON."""

import dataclasses
import json
from typing import List, Optional

from tools.report import compare_lib


def number(value: Optional[float]) -> str:
    """Four significant digits (the report uses the same), an em dash for none."""
    return "—" if value is None else f"{value:.4g}"


def interval(m: compare_lib.MetricComparison) -> str:
    return "—" if m.low is None else f"[{number(m.low)}, {number(m.high)}]"


def _cells(m: compare_lib.MetricComparison) -> List[str]:
    if m.unavailable:
        verdict = f"not compared: {m.unavailable}"
    elif m.excludes_zero:
        verdict = f"{m.better} better"
    else:
        verdict = "interval includes 0" if m.low is not None else ""
    direction = "higher" if m.higher_is_better else "lower"
    flags = ("; WARNING: " + "; ".join(m.warnings)) if m.warnings else ""
    return [m.key, number(m.mean_a), number(m.mean_b), number(m.difference), interval(m),
            str(m.paired), f"{m.unit} ({direction} better)", verdict + flags]


_HEADER = ["metric", "A", "B", "B-A", "95% interval", "n", "unit", "verdict"]


def _preamble(cmp: compare_lib.Comparison) -> List[str]:
    lines = [f"A = {cmp.a}; B = {cmp.b}; {cmp.interval_method}"]
    lines += [f"WARNING: {w}" for w in cmp.warnings]
    if cmp.flagged:
        lines.append("FLAGGED: the runs differ (see the warnings); not a like-for-like "
                     "comparison")
    return lines


def table(cmp: compare_lib.Comparison) -> str:
    rows = [_HEADER] + [_cells(m) for m in cmp.metrics]
    widths = [max(len(r[i]) for r in rows) for i in range(len(_HEADER) - 1)]
    body = ["  ".join(c.ljust(w) for c, w in zip(r[:-1], widths)) + "  " + r[-1]
            for r in rows]
    return "\n".join(_preamble(cmp) + body) + "\n"


def markdown(cmp: compare_lib.Comparison) -> str:
    rows = [_HEADER, ["---"] * len(_HEADER)] + [_cells(m) for m in cmp.metrics]
    body = ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
    return "\n".join([line + "  " for line in _preamble(cmp)] + [""] + body) + "\n"


def as_json(cmp: compare_lib.Comparison) -> str:
    data = dataclasses.asdict(cmp)
    data["flagged"] = cmp.flagged
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


FORMATS = {"table": table, "markdown": markdown, "json": as_json}
