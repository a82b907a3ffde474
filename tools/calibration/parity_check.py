"""What every backend's parity test asserts: each row within its tolerance, and equal
to the committed table (tools/calibration/parity.csv) up to float rounding."""

import csv
import os
from typing import Sequence

from benchmarks.common import paths
from tools.calibration import parity_table

REGENERATE = ("bazel run //tools/calibration:write_parity_table -- "
              "--output=$PWD/tools/calibration/parity.csv")
MEASURED = "parity_rows.csv"  # under $TEST_UNDECLARED_OUTPUTS_DIR (Bazel's outputs.zip)


def _write_measured(rows: Sequence[parity_table.Row], committed) -> None:
    """The recomputed rows beside the committed differences, for the record of this CPU."""
    folder = os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR")
    if not folder:
        return
    old = {(r.backend, r.check, r.compared): r for r in committed}
    path = os.path.join(folder, MEASURED)
    new_file = not os.path.exists(path)
    with open(path, "a", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        if new_file:
            out.writerow(["backend", "check", "compared", "tolerance", "max_rel_diff",
                          "committed_rel", "max_abs_diff", "committed_abs", "floor",
                          "element_ratio", "floor_needed"])
        for r in rows:
            c = old.get((r.backend, r.check, r.compared))
            out.writerow([r.backend, r.check, r.compared[:60], r.tolerance, r.max_rel_diff,
                          c.max_rel_diff if c else "", r.max_abs_diff,
                          c.max_abs_diff if c else "", getattr(r, "floor", ""),
                          getattr(r, "element_ratio", ""), getattr(r, "floor_needed", "")])


def assert_rows(rows: Sequence[parity_table.Row]) -> None:
    committed = parity_table.read(paths.runfile(parity_table.TABLE))
    _write_measured(rows, committed)
    failed = [f"{r.backend} {r.check}: max_rel_diff {r.max_rel_diff:.3g} > {r.tolerance:g} "
              f"({r.compared})" for r in rows if not r.passed]
    failed += [f"{r.backend} {r.check}: an element is {r.element_ratio:.3g} of max(its own "
               f"magnitude, {r.floor:g} x the largest) from the official one, > "
               f"{r.tolerance:g} ({r.compared})" for r in rows
               if isinstance(r, parity_table.Measured) and not r.elements_passed]
    assert not failed, "\n".join(failed)
    assert {r.check for r in rows} == set(parity_table.CHECKS), [r.check for r in rows]
    problems = parity_table.drift(rows, committed)
    assert not problems, ("the parity table is stale; regenerate it with " + REGENERATE
                          + ":\n" + "\n".join(problems))
