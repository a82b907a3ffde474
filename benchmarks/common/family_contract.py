"""The family contract: what every registered family of every benchmark must satisfy.

A benchmark's test builds its families (tiny random weights where they need weights)
and a sample context, and calls `check` on each, then `check_disjoint` on all; or runs
the benchmark end to end inside `enforced(...)`, which checks every family that
benchmarks/common/family.prepare builds on every sample it computes:

  - compute returns a FamilyResult (or raises an expected error: then every metric of
    the family is unavailable on that sample, with the message as the reason);
  - its columns are known raw columns of the benchmark, each None, a finite float or a
    list of finite floats (a raw score's components), and no two families fill the same
    column;
  - it gives reasons only for its own metrics, non-empty ones;
  - its metrics are in the benchmark's metric table, under this family's name, and each
    metric's backend is one the table declares (official iff it is the first; a
    declared name may hold a "*" for a part the run's settings choose);
  - the checkpoints behind each metric are among the family's checkpoints.
"""

import contextlib
import fnmatch
import math
from typing import Callable, Collection, Dict, Iterable, Mapping, Sequence, Union

from benchmarks.common import family as family_lib
from benchmarks.common.metric_table import MetricTable


class ContractError(AssertionError):
    """A family broke the contract; the message names the family and what is wrong."""


def _fail(fam, what: str):
    raise ContractError(f"family {fam.name!r}: {what}")


def _finite(value) -> bool:
    """None, a finite float, or a list of finite floats (a raw score's components)."""
    if isinstance(value, list):
        return bool(value) and all(_finite(v) and v is not None for v in value)
    return value is None or (isinstance(value, float) and math.isfinite(value))


Columns = Union[Collection[str], Callable[[str], bool]]  # known names, or a test of one


def check(fam: family_lib.Family, ctx, table: MetricTable, known_columns: Columns,
          aliases: Mapping[str, str] = None) -> family_lib.FamilyResult:
    """Runs `fam` on `ctx` and checks the contract; returns its result.

    `aliases` maps a family name to the table family it stands in for (a family built
    only when its fuller sibling is not, e.g. MemoBench's aesthetic-only family).
    """
    expected = family_lib.EXPECTED_ERRORS + tuple(fam.expected_errors)
    try:
        result = fam.compute(ctx)
    except expected as e:  # a reason for every metric, as the engine records it
        result = family_lib.FamilyResult({}, {m: str(e) for m in fam.metric_ids})
    check_result(fam, result, table, known_columns)
    check_metrics(fam, table, aliases)
    return result


def check_result(fam: family_lib.Family, result, table: MetricTable,
                 known_columns: Columns) -> None:
    """One sample's result: a FamilyResult of known, finite columns and non-empty reasons
    for the family's own metrics only."""
    known = known_columns if callable(known_columns) else known_columns.__contains__
    if not isinstance(result, family_lib.FamilyResult):
        _fail(fam, f"compute returned {type(result).__name__}, not a FamilyResult")
    for column, value in result.columns.items():
        if not known(column):
            _fail(fam, f"filled {column!r}, which is not a raw column of {table.benchmark}")
        if not _finite(value):
            _fail(fam, f"column {column!r} holds {value!r}, not None, a finite float or "
                       "a list of them")
    for metric, reason in result.unavailable.items():
        if metric not in fam.metric_ids:
            _fail(fam, f"gave a reason for {metric!r}, a metric it does not own")
        if not isinstance(reason, str) or not reason.strip():
            _fail(fam, f"gave an empty reason for {metric!r}")


def check_metrics(fam: family_lib.Family, table: MetricTable,
                  aliases: Mapping[str, str] = None) -> None:
    """The family's metrics are the table's, under its name, on declared backends, with
    the checkpoints it holds. An alias to None: a family that fills metrics of several
    table families (one model run for two aspects)."""
    table_family = (aliases or {}).get(fam.name, fam.name)
    refs = {id(ref) for ref in fam.checkpoints}
    for metric in fam.metric_ids:
        spec = table.by_id.get(metric)
        if spec is None:
            _fail(fam, f"owns {metric!r}, which is not in {table.benchmark}'s metric table")
        if table_family is not None and spec.family != table_family:
            _fail(fam, f"owns {metric!r}, which the table gives to family {spec.family!r}")
        backend = fam.backend_for(metric)
        if not any(fnmatch.fnmatchcase(backend.name, name) for name in spec.backends):
            _fail(fam, f"computes {metric!r} with backend {backend.name!r}; the table "
                       f"declares {spec.backends}")
        if backend.official != (backend.name == spec.backends[0]):
            _fail(fam, f"backend {backend.name!r} of {metric!r}: official={backend.official}"
                       f" but the table's official backend is {spec.backends[0]!r}")
        if any(id(ref) not in refs for ref in fam.checkpoints_for(metric)):
            _fail(fam, f"checkpoints_for({metric!r}) names a checkpoint it does not hold")


@contextlib.contextmanager
def enforced(benchmark):
    """Within it, every family that family.prepare builds is checked (check_metrics) and
    so is each result it computes (check_result), as the run goes, against the
    benchmark's declaration (an engine.Benchmark: its table, raw_columns and
    family_aliases); yields {family name: results checked}. For a benchmark's end-to-end
    test on tiny weights."""
    checked: Dict[str, int] = {}
    real = family_lib.prepare

    def prepare(*args, **kwargs):
        prepared = real(*args, **kwargs)
        for fam in prepared.families:
            check_metrics(fam, benchmark.table, benchmark.family_aliases)
            fam.compute = _checked(fam, fam.compute, benchmark.table, benchmark.raw_columns,
                                   checked)
        return prepared

    family_lib.prepare = prepare
    try:
        yield checked
    finally:
        family_lib.prepare = real


def _checked(fam, compute, table, known_columns, checked):
    def checked_compute(ctx):
        result = compute(ctx)  # an expected error is the engine's to record, as ever
        check_result(fam, result, table, known_columns)
        checked[fam.name] = checked.get(fam.name, 0) + 1
        return result
    return checked_compute


def check_disjoint(results: Mapping[str, family_lib.FamilyResult]) -> None:
    """No raw column is filled by two families."""
    owner: Dict[str, str] = {}
    for name, result in results.items():
        for column in result.columns:
            if column in owner:
                raise ContractError(f"families {owner[column]!r} and {name!r} both fill "
                                    f"{column!r}")
            owner[column] = name


def check_all(families: Iterable[family_lib.Family], ctx, table: MetricTable,
              known_columns: Columns, aliases: Mapping[str, str] = None
              ) -> Dict[str, family_lib.FamilyResult]:
    results = {fam.name: check(fam, ctx, table, known_columns, aliases) for fam in families}
    check_disjoint(results)
    return results


def owned_metrics(families: Sequence[family_lib.Family]) -> Dict[str, str]:
    """metric id -> the family that owns it; raises when two families own one."""
    owners: Dict[str, str] = {}
    for fam in families:
        for metric in fam.metric_ids:
            if metric in owners:
                raise ContractError(f"families {owners[metric]!r} and {fam.name!r} both own "
                                    f"{metric!r}")
            owners[metric] = fam.name
    return owners
