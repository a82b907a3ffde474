"""The registered benchmarks: the catalog's entries with a `//benchmarks/<package>:run`
target, and what each declares (its metric table, its engine declaration). Keyed by
benchmark id; the modules are found in the id's package (catalog_lib.package_of).

Cross-benchmark code (the report, the tests over every benchmark) iterates these instead
of naming benchmarks. Its targets depend on `//benchmarks:metric_tables` or
`//benchmarks:runners`, whose lists BUILD files take from the catalog
(`@worldeval_catalog//:benchmarks.bzl`).
"""

import importlib
from typing import Dict, List

from benchmarks.common.metric_table import MetricTable
from tools.catalog import catalog_lib


def ids() -> List[str]:
    """The registered benchmarks' ids, sorted."""
    return catalog_lib.runnable_ids()


def table(benchmark_id: str) -> MetricTable:
    """`benchmarks/<package>/metric_specs.py`'s TABLE (light: no model code is imported)."""
    package = catalog_lib.package_of(benchmark_id)
    return importlib.import_module(f"benchmarks.{package}.metric_specs").TABLE


def tables() -> Dict[str, MetricTable]:
    return {b: table(b) for b in ids()}


def benchmark(benchmark_id: str):
    """`benchmarks/<package>/runner.py`'s BENCHMARK (an engine.Benchmark)."""
    package = catalog_lib.package_of(benchmark_id)
    return importlib.import_module(f"benchmarks.{package}.runner").BENCHMARK
