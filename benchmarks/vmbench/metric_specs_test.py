"""VMBench's metric table: the catalog follows it, --metrics takes short names."""

import pytest

from benchmarks.common.errors import InputError
from benchmarks.vmbench import metric_specs
from tools.catalog import catalog_lib


def test_catalog_metrics_are_the_tables_leaderboard():
    entry = catalog_lib.get_entry("vmbench", catalog_lib.load_catalog())
    assert list(entry.metrics) == [s.id for s in metric_specs.TABLE.leaderboard]


def test_select_short_names_and_did_you_mean():
    assert metric_specs.TABLE.select(["tcs", "pas"]) == [
        "perceptible_amplitude_score", "temporal_coherence_score"]
    assert metric_specs.TABLE.select(None) == list(metric_specs.PER_VIDEO_IDS)
    with pytest.raises(InputError, match="did you mean temporal_coherence_score"):
        metric_specs.TABLE.select(["temporal_coherence_scor"])


def test_pas_is_not_a_scores_csv_column():
    assert metric_specs.BY_ID["perceptible_amplitude_score"].output_files == ("results.json",)


def test_a_near_short_name_gets_a_hint():
    with pytest.raises(InputError, match=r"pass \(did you mean pas\?\)"):
        metric_specs.TABLE.select(["pass"])
