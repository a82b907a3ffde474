"""The family contract: what every registered family of every benchmark must satisfy.

A benchmark's test builds its families (tiny random weights where they need weights)
and a sample context, and calls `check` on each, then `check_disjoint` on all:

  - compute returns a FamilyResult (or raises an expected error: then every metric of
    the family is unavailable on that sample, with the message as the reason);
  - its columns are known raw columns of the benchmark, each None or a finite float, and
    no two families fill the same column;
  - it gives reasons only for its own metrics, non-empty ones;
  - its metrics are in the benchmark's metric table, under this family's name, and each
    metric's backend is one the table declares (official iff it is the first);
  - the checkpoints behind each metric are among the family's checkpoints.
"""

import math
from typing import Collection, Dict, Iterable, Mapping, Sequence

from benchmarks.common import family as family_lib
from benchmarks.common.metric_table import MetricTable


class ContractError(AssertionError):
    """A family broke the contract; the message names the family and what is wrong."""


def _fail(fam, what: str):
    raise ContractError(f"family {fam.name!r}: {what}")


def check(fam: family_lib.Family, ctx, table: MetricTable, known_columns: Collection[str],
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
    if not isinstance(result, family_lib.FamilyResult):
        _fail(fam, f"compute returned {type(result).__name__}, not a FamilyResult")
    for column, value in result.columns.items():
        if column not in known_columns:
            _fail(fam, f"filled {column!r}, which is not a raw column of {table.benchmark}")
        if value is not None and not (isinstance(value, float) and math.isfinite(value)):
            _fail(fam, f"column {column!r} holds {value!r}, not None or a finite float")
    for metric, reason in result.unavailable.items():
        if metric not in fam.metric_ids:
            _fail(fam, f"gave a reason for {metric!r}, a metric it does not own")
        if not isinstance(reason, str) or not reason.strip():
            _fail(fam, f"gave an empty reason for {metric!r}")
    table_family = (aliases or {}).get(fam.name, fam.name)
    refs = {id(ref) for ref in fam.checkpoints}
    for metric in fam.metric_ids:
        spec = table.by_id.get(metric)
        if spec is None:
            _fail(fam, f"owns {metric!r}, which is not in {table.benchmark}'s metric table")
        if spec.family != table_family:
            _fail(fam, f"owns {metric!r}, which the table gives to family {spec.family!r}")
        backend = fam.backend_for(metric)
        if backend.name not in spec.backends:
            _fail(fam, f"computes {metric!r} with backend {backend.name!r}; the table "
                       f"declares {spec.backends}")
        if backend.official != (backend.name == spec.backends[0]):
            _fail(fam, f"backend {backend.name!r} of {metric!r}: official={backend.official}"
                       f" but the table's official backend is {spec.backends[0]!r}")
        if any(id(ref) not in refs for ref in fam.checkpoints_for(metric)):
            _fail(fam, f"checkpoints_for({metric!r}) names a checkpoint it does not hold")
    return result


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
              known_columns: Collection[str], aliases: Mapping[str, str] = None
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
