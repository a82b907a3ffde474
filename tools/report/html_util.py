"""Small HTML builders for the report: escaping, tables, panels and the inline style.

Cells that carry a number say what it is in data attributes (`data-run`, `data-metric`,
`data-field`, and `data-value` with the full-precision number), so that tests and
scripts read the numbers back from the DOM.
"""

import html
from typing import Iterable, Optional, Sequence

from tools.report import compare_format

CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 72em;
       padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; margin-bottom: .2em; } h2 { font-size: 1.2em; margin-top: 0; }
.panel { border: 1px solid #ddd; border-radius: 6px; padding: .8em 1em; margin: 1em 0;
         break-inside: avoid; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { border-bottom: 1px solid #eee; padding: .25em .5em; text-align: left;
         vertical-align: top; }
th { background: #f5f5f5; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.yes { color: #2e7d32; } .no { color: #b71c1c; } .muted { color: #777; }
.warn { background: #fff4e5; border-left: 4px solid #f57c00; padding: .3em .6em; }
.chart svg { max-width: 100%; height: auto; }
.small { font-size: 12px; } code { font-size: 12px; word-break: break-all; }
@media print { body { max-width: none; } .panel { border: none; padding: 0; } }
"""


# The page itself forbids any fetch: a browser blocks (and logs) whatever would load.
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def esc(text) -> str:
    return html.escape(str(text), quote=True)


def number_cell(value: Optional[float], run: int, metric: str, field: str,
                tag: str = "td") -> str:
    """A <td> (or `tag`) showing `value` with four significant digits, the full value as
    data; `run` is the run's index (or the comparison's, from 1)."""
    attrs = f'class="num" data-run="{run}" data-metric="{esc(metric)}" data-field="{field}"'
    if value is None:
        return f"<{tag} {attrs}>—</{tag}>"
    return (f'<{tag} {attrs} data-value="{value!r}">{esc(compare_format.number(value))}'
            f"</{tag}>")


def interval_cell(low: Optional[float], high: Optional[float], run: int, metric: str,
                  fields=("ci_low", "ci_high")) -> str:
    """A <td> with `[low, high]`, each number in its own data-carrying span."""
    if low is None or high is None:
        return '<td class="num">—</td>'
    return (f'<td class="num">[{number_cell(low, run, metric, fields[0], "span")}, '
            f'{number_cell(high, run, metric, fields[1], "span")}]</td>')


def cell(content: str = "", raw: bool = False, cls: str = "") -> str:
    klass = f' class="{cls}"' if cls else ""
    return f"<td{klass}>{content if raw else esc(content)}</td>"


def yes_no(flag: bool, yes: str = "yes", no: str = "no", title: str = "") -> str:
    tip = f' title="{esc(title)}"' if title else ""
    return f'<span class="{"yes" if flag else "no"}"{tip}>{esc(yes if flag else no)}</span>'


def table(headers: Sequence[str], rows: Iterable[Sequence[str]], cls: str = "") -> str:
    """`rows` are lists of ready <td> strings (see cell / number_cell)."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(r) + "</tr>" for r in rows)
    klass = f' class="{cls}"' if cls else ""
    return f"<table{klass}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def panel(panel_id: str, title: str, body: str) -> str:
    return (f'<section class="panel" id="{esc(panel_id)}"><h2>{esc(title)}</h2>'
            f"{body}</section>")


def page(title: str, body: str) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{esc(CSP)}">'
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{esc(title)}</title><style>{CSS}</style></head>"
            f"<body>{body}</body></html>\n")
