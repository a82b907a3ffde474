"""The official per-model metrics CSV of Physics-IQ (spec §8;
code/calculate_and_write_metrics_to_csv.py:357-444 @ e457754).

Upstream collects one dict per scenario ({"scenario": name, "<key>_<view>": value, ...}),
turns list values into lists of Python floats (:432-436) and writes
`pd.DataFrame(rows).to_csv(path, index=False)` (:441-442). What that puts on disk, and what
`write_csv` reproduces byte for byte:
  - no index column; the header is `scenario` then, for the views left, center, right, the
    12 keys of the `out` dict (:357-370) suffixed `_{view}`: 37 columns;
  - a list cell is `str(list_of_python_floats)`, e.g. `[1.0, 0.9375]`; a scalar cell is the
    float's shortest repr (pandas formats a float64 column through numpy's `astype(str)`,
    which for float64 is Python's `repr`);
  - csv-module QUOTE_MINIMAL with `"` (list cells holding a comma are quoted, a one-frame
    list `[1.0]` is not), and "\n" line ends (os.linesep on Linux).
Upstream never writes a non-finite value (IoUs have a non-empty union, MSEs are finite),
so `write_csv` refuses one instead of guessing pandas' `na_rep`.

`read_csv` gives the rows back for the importer: strict parsing (each list element must be a
float literal; no 4-dp rounding here: that is the scorer's, see iq_score.py), failing closed
with the file, the data row (1-based; its line is row + 1) and the column named. Column
order is free because the Verified writer orders columns by completion (spec §10, "Metric
computation" item 4). Scalars are returned as float() reads them; upstream_scalar gives
them as upstream's pandas read_csv does (see below), which is what the scorers use.
"""

import csv
import dataclasses
import math
import pathlib
import re
from typing import Dict, List, Mapping, Sequence, Union

from benchmarks.common.errors import InputError

VIEWS = ("perspective-left", "perspective-center", "perspective-right")

# The `out` dict's keys in upstream order (calculate_and_write_metrics_to_csv.py:357-370).
KEYS = (
    "v1_mse",
    "v2_mse",
    "variance_spatial",
    "variance_weighted_spatial",
    "variance_spatiotemporal_iou",
    "variance_mse",
    "spatiotemporal_iou_v1",
    "spatiotemporal_iou_v2",
    "spatial_iou_v1",
    "spatial_iou_v2",
    "weighted_spatial_iou_v1",
    "weighted_spatial_iou_v2",
)
# Keys holding one value per frame (spec §7 table, "list").
LIST_KEYS = frozenset({
    "v1_mse", "v2_mse", "variance_spatiotemporal_iou", "variance_mse",
    "spatiotemporal_iou_v1", "spatiotemporal_iou_v2",
})
SCENARIO = "scenario"
COLUMNS = (SCENARIO,) + tuple(f"{key}_{view}" for view in VIEWS for key in KEYS)

Value = Union[float, List[float]]


@dataclasses.dataclass(frozen=True)
class ScenarioRow:
    """One CSV row: the scenario's trailing name part (e.g. `trimmed-ball-fall.mp4`) and,
    per view, the 12 keys' values (lists for LIST_KEYS, floats otherwise)."""

    scenario: str
    views: Mapping[str, Mapping[str, Value]]


def column(key: str, view: str) -> str:
    return f"{key}_{view}"


def _finite(value, where: str) -> float:
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{where}: {value!r} is not finite; upstream never writes one")
    return value


def format_cell(key: str, value, where: str = "") -> str:
    """The cell text upstream's writer gives `value` under `key` (see module doc)."""
    where = where or key
    if key in LIST_KEYS:
        if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            raise ValueError(f"{where}: expected a list of floats, got {value!r}")
        return str([_finite(v, where) for v in value])
    return repr(_finite(value, where))


def write_csv(path, rows: Sequence[ScenarioRow]) -> None:
    """Writes `rows` as upstream's per-model CSV at `path`; every row must have all 3 views
    and all 12 keys (upstream raises on a scenario lacking a view, :411-415)."""
    lines = []
    for row in rows:
        cells = [row.scenario]
        for view in VIEWS:
            values = row.views.get(view)
            if values is None:
                raise ValueError(f"scenario {row.scenario!r}: view {view!r} missing")
            for key in KEYS:
                if key not in values:
                    raise ValueError(f"scenario {row.scenario!r}: {column(key, view)} missing")
                cells.append(format_cell(key, values[key],
                                         f"scenario {row.scenario!r} {column(key, view)}"))
        lines.append(cells)
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
        writer.writerow(COLUMNS)
        writer.writerows(lines)


EXPECTED = "Physics-IQ metrics CSV (spec §8): header `scenario` + 36 `<key>_<view>` columns"


def _parse_float(text: str, where: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InputError(where, what, repr(text)) from None
    if not math.isfinite(value):
        raise InputError(where, what, repr(text))
    return value


def parse_cell(key: str, text: str, where: str) -> Value:
    """One cell strictly parsed: a list cell must be `[f, f, ...]` of finite float literals
    (at least one), a scalar cell one finite float literal."""
    if key not in LIST_KEYS:
        return _parse_float(text.strip(), where, "a float")
    what = "a list of floats like [1.0, 0.5]"
    if not (text.startswith("[") and text.endswith("]")) or not text[1:-1].strip():
        raise InputError(where, what, repr(text))
    return [_parse_float(part.strip(), where, what) for part in text[1:-1].split(",")]


def read_csv(path) -> List[ScenarioRow]:
    """The rows of an official (or our) metrics CSV, in file order."""
    path = pathlib.Path(path)
    try:
        with open(path, encoding="utf-8", newline="") as f:
            records = list(csv.reader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise InputError(path, EXPECTED, f"{type(e).__name__}: {e}") from e
    if not records:
        raise InputError(path, EXPECTED, "an empty file")
    header = records[0]
    missing = [c for c in COLUMNS if c not in header]
    unknown = [c for c in header if c not in COLUMNS]
    duplicated = sorted({c for c in header if header.count(c) > 1})
    if missing or unknown or duplicated:
        found = "; ".join(f"{label} {names}" for label, names in (
            ("missing", missing), ("unknown", unknown), ("duplicated", duplicated)) if names)
        raise InputError(f"{path}: line 1 (header)", EXPECTED, found)
    index = {name: i for i, name in enumerate(header)}
    rows, seen = [], set()
    for row_no, record in enumerate(records[1:], start=1):
        at = f"{path}: row {row_no} (line {row_no + 1})"
        if len(record) != len(header):
            raise InputError(at, f"{len(header)} cells", f"{len(record)}")
        scenario = record[index[SCENARIO]]
        if not scenario or scenario in seen:
            raise InputError(f"{at}, column {SCENARIO}",
                             "a non-empty scenario name, unique in the file", repr(scenario))
        seen.add(scenario)
        views: Dict[str, Dict[str, Value]] = {}
        for view in VIEWS:
            views[view] = {
                key: parse_cell(key, record[index[column(key, view)]],
                                f"{at}, column {column(key, view)}")
                for key in KEYS}
        rows.append(ScenarioRow(scenario, views))
    return rows


# pandas 2.x read_csv's default float parser (float_precision None = "high":
# pandas/_libs/src/parser/tokenizer.c precise_xstrtod, pandas 2.3.3 as in our lock): it
# keeps the first 17 digits of the mantissa, leading zeros included, accumulates them in a
# double (number * 10 + digit), then multiplies or divides once by a double power of ten.
# That is not correctly rounded: "0.25891675029296335" reads as 0.2589167502929633, one ulp
# off float(). Upstream's scorers read the scalar columns this way (the list columns are
# strings parsed by Python's float), so the scorers here read scalars through it too.
_POW10 = tuple(float(f"1e{k}") for k in range(309))
_DECIMAL = re.compile(r"\s*([-+]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([-+]?[0-9]{1,17}))?\s*")
_MAX_DIGITS = 17


def pandas_float(text: str) -> float:
    """The float pandas 2.x's read_csv gives a decimal cell `text` (see above)."""
    match = _DECIMAL.fullmatch(text)
    if not match or not (match.group(2) or match.group(3)):
        raise ValueError(f"{text!r} is not a decimal literal")
    sign, integer, fraction, exp = match.groups()
    number, digits, exponent = 0.0, 0, 0
    for d in integer:
        if digits < _MAX_DIGITS:
            number = number * 10.0 + int(d)
            digits += 1
        else:
            exponent += 1
    for d in (fraction or "")[:max(0, _MAX_DIGITS - digits)]:
        number = number * 10.0 + int(d)
        exponent -= 1
    if sign == "-":
        number = -number
    exponent += int(exp or 0)
    if exponent > 308:
        return math.copysign(math.inf, number)
    if exponent > 0:
        return number * _POW10[exponent]
    if exponent < -616:
        return 0.0
    if exponent < -308:
        return number / _POW10[-308 - exponent] / _POW10[308]
    return number / _POW10[-exponent]


def upstream_scalar(value) -> float:
    """A scalar as upstream's scorer gets it back from the CSV: its cell text (a float's
    repr, as the writer puts it) read by pandas_float."""
    return pandas_float(value if isinstance(value, str) else repr(float(value)))
