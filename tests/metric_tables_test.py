"""The catalog's headline metrics of each registered benchmark are its metric table's
leaderboard metrics, in order (the table is the one list; the catalog must follow it),
and each runner's engine declaration carries that same table.

Where the leaderboard's columns are formulas over evaluator metrics that the table names
`<column>.<metric>` (WorldScore's aspects), the catalog lists those evaluator metrics (its
runtime profile's), in the table's order."""

import pytest

from tools.catalog import catalog_lib
from tools.catalog import registry


def test_every_runnable_catalog_entry_is_registered():
    assert registry.ids() == sorted(
        e.id for e in catalog_lib.load_catalog().benchmarks
        if any(t.endswith(":run") for t in e.targets)), "a :run target outside benchmarks/?"
    assert len(registry.ids()) >= 4


@pytest.mark.parametrize("benchmark_id", registry.ids())
def test_catalog_metrics_are_the_tables_leaderboard(benchmark_id):
    entry = catalog_lib.get_entry(benchmark_id, catalog_lib.load_catalog())
    table = registry.table(benchmark_id)
    leaderboard = [spec.id for spec in table.leaderboard]
    evaluator = list(dict.fromkeys(spec.id.split(".", 1)[1] for spec in table.specs
                                   if "." in spec.id))
    assert list(entry.metrics) in (leaderboard, evaluator), (list(entry.metrics), leaderboard)


@pytest.mark.parametrize("benchmark_id", registry.ids())
def test_the_runner_declares_its_table(benchmark_id):
    declared = registry.benchmark(benchmark_id)
    assert declared.id == benchmark_id
    assert declared.table is registry.table(benchmark_id)
