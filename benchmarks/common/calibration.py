"""Backend parity facts derived from the parity table (tools/calibration/parity.csv).

The table (written by //tools/calibration:write_parity_table from the parity checks,
each recomputed by the test named in its rows) has one or more rows per (backend,
check), each with its own comparison (e.g. float32 and float16 scores): what
of worldeval's pipeline was compared with the official package (preprocess, features,
score), against which package version, on which weights, with the tolerance and the
largest difference seen, and whether CI recomputes our side of it (`recorded`). This
module owns the table's row format and reading, and turns a backend's rows into its
scorecard Parity:

* verified only if the backend has a row for every check, each within its tolerance
  and none recorded: CI recomputes our side of every row (on the official seeded
  inputs, against stored official outputs or the live official package); the evidence
  names the table, the backend's rows, the reference package and the test; the scope
  says what was compared, at what tolerance, the largest relative difference, and
  RANDOM_WEIGHTS_SCOPE when any row used random weights;
* not verified otherwise (no entry, an incomplete entry, a failing row, or a recorded
  row: a comparison made once outside CI, whose "ours" is a stored number that a
  regression in our code would not move), with the reason in the scope, after what the
  backend says it checked instead; a recorded row's scope gives its date and commits
  and what it compared, and says it is not recomputed by CI.
"""

import csv
import dataclasses
import functools
import pathlib
from typing import Dict, List

from benchmarks.common import paths
from benchmarks.common import trust
from proto import scorecard_pb2

TABLE = "tools/calibration/parity.csv"
CHECKS = ("preprocess", "features", "score")
RANDOM_WEIGHTS_SCOPE = ("architecture and preprocessing verified on random weights; real "
                        "weights not compared")
COMPOSITE = " + "
TEXT_FIELDS = ("backend", "test", "check", "compared", "reference", "weights", "inputs",
               "recorded")


@dataclasses.dataclass(frozen=True)
class Row:
    """One comparison; the columns are described in tools/calibration/parity_table.py."""

    backend: str
    test: str
    check: str
    compared: str
    reference: str
    weights: str
    inputs: str
    tolerance: float
    max_abs_diff: float
    max_rel_diff: float
    recorded: str = ""  # "" when CI recomputes our side; else when and against what commits

    @property
    def passed(self) -> bool:
        return self.max_rel_diff <= self.tolerance

    @property
    def random_weights(self) -> bool:
        return self.weights.startswith("random")


FIELDS = tuple(f.name for f in dataclasses.fields(Row))


def read(path) -> List[Row]:
    """The rows of a parity CSV.

    Raises:
        ValueError: Naming the file (and line), when the columns are not FIELDS or a
            number does not parse.
    """
    path = pathlib.Path(path)
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        if tuple(reader.fieldnames or ()) != FIELDS:
            raise ValueError(f"{path}: expected the columns {FIELDS}, found {reader.fieldnames}")
        rows = []
        for number, raw in enumerate(reader, start=2):
            try:
                rows.append(Row(**{k: raw[k] for k in TEXT_FIELDS},
                                **{k: float(raw[k]) for k in FIELDS if k not in TEXT_FIELDS}))
            except ValueError as e:
                raise ValueError(f"{path}:{number}: {e}") from e
    return rows


def by_backend(rows) -> Dict[str, List[Row]]:
    table: Dict[str, List[Row]] = {}
    for row in rows:
        table.setdefault(row.backend, []).append(row)
    return table


@functools.lru_cache(maxsize=None)
def _committed() -> Dict[str, List[Row]]:
    return by_backend(read(paths.runfile(TABLE)))


def parity_from_rows(backend: str, rows: List[Row], otherwise: str = "") -> scorecard_pb2.Parity:
    """The Parity of `backend` given its table rows (see the module docstring).

    Args:
        backend: The Backend.name (for the messages).
        rows: Its rows (possibly none).
        otherwise: What the backend checked instead, kept in an unverified scope.
    """
    prefix = f"{otherwise}; " if otherwise else ""
    if not rows:
        return trust.not_verified(f"{prefix}no entry in {TABLE}")
    missing = [c for c in CHECKS if c not in {r.check for r in rows}]
    failing = [f"{r.check} {r.max_rel_diff:.3g} > {r.tolerance:g}" for r in rows if not r.passed]
    if missing or failing:
        what = (f"checks missing: {', '.join(missing)}" if missing else
                f"failing: {', '.join(failing)}")
        return trust.not_verified(f"{prefix}{TABLE} entry incomplete ({what})")
    ordered = sorted(rows, key=lambda r: CHECKS.index(r.check))
    recorded = [r for r in ordered if r.recorded]
    if recorded:
        return trust.not_verified(prefix + "; ".join(
            f"{r.check}: recorded comparison ({r.recorded}; {r.compared}), not recomputed "
            "by CI" for r in recorded) + f" ({TABLE} rows '{backend}')")
    references = sorted({r.reference for r in rows})
    tests = sorted({r.test for r in rows})
    scope = (f"{'; '.join(f'{r.check}: {r.compared}' for r in ordered)}; on {ordered[0].inputs};"
             f" relative tolerance {max(r.tolerance for r in rows):g}, largest difference seen "
             f"{max(r.max_rel_diff for r in rows):.2g}; weights: "
             f"{'; '.join(sorted({r.weights for r in rows}))}")
    if any(r.random_weights for r in rows):
        scope += f". {RANDOM_WEIGHTS_SCOPE}"
    evidence = (f"{TABLE} rows '{backend}' (against {' + '.join(references)}), recomputed by "
                f"{', '.join(tests)}")
    return trust.verified(evidence, scope)


def parity(backend: str, otherwise: str = "") -> scorecard_pb2.Parity:
    """The Parity of `backend` from the committed table (read once per process).

    A composite backend named "a + b" (one metric computed from two models) without rows
    of its own is verified when each part is; its evidence and scope are the parts'.

    Raises:
        FileNotFoundError: The table is not in the running target's runfiles.
        ValueError: The table is malformed (names the file and line).
    """
    table = _committed()
    parts = backend.split(COMPOSITE)
    if backend in table or len(parts) == 1:
        return parity_from_rows(backend, table.get(backend, []), otherwise)
    facts = [parity_from_rows(part, table.get(part, [])) for part in parts]
    if all(fact.verified for fact in facts):
        return trust.verified(" | ".join(f"{p}: {f.evidence}" for p, f in zip(parts, facts)),
                              " | ".join(f"{p}: {f.scope}" for p, f in zip(parts, facts)))
    missing = [f"{p}: {f.scope}" for p, f in zip(parts, facts) if not f.verified]
    prefix = f"{otherwise}; " if otherwise else ""
    return trust.not_verified(prefix + "; ".join(missing))
