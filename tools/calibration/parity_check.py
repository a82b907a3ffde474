"""What every backend's parity test asserts: each row within its tolerance, and equal
to the committed table (tools/calibration/parity.csv) up to float rounding."""

from typing import Sequence

from benchmarks.common import paths
from tools.calibration import parity_table

REGENERATE = ("bazel run //tools/calibration:write_parity_table -- "
              "--output=$PWD/tools/calibration/parity.csv")


def assert_rows(rows: Sequence[parity_table.Row]) -> None:
    failed = [f"{r.backend} {r.check}: max_rel_diff {r.max_rel_diff:.3g} > {r.tolerance:g} "
              f"({r.compared})" for r in rows if not r.passed]
    assert not failed, "\n".join(failed)
    assert {r.check for r in rows} == set(parity_table.CHECKS), [r.check for r in rows]
    committed = parity_table.read(paths.runfile(parity_table.TABLE))
    problems = parity_table.drift(rows, committed)
    assert not problems, ("the parity table is stale; regenerate it with " + REGENERATE
                          + ":\n" + "\n".join(problems))
