"""The catalog's headline metrics of each implemented benchmark are its metric table's
leaderboard metrics, in order (the table is the one list; the catalog must follow it)."""

import pytest

from benchmarks.memobench import metric_specs as memobench_metrics
from tools.catalog import catalog_lib

TABLES = {"memobench": memobench_metrics.TABLE}


@pytest.mark.parametrize("benchmark_id", sorted(TABLES))
def test_catalog_metrics_are_the_tables_leaderboard(benchmark_id):
    entry = catalog_lib.get_entry(benchmark_id, catalog_lib.load_catalog())
    assert list(entry.metrics) == [spec.id for spec in TABLES[benchmark_id].leaderboard]
