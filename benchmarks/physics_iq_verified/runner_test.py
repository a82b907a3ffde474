"""The Physics-IQ Verified runner end to end on the synthetic tree: each run's CSV and
{run}_metrics.json, the mean and std over runs (checked here with statistics' own
sample std), a one-run std unavailable, the run-count rule."""

import json
import pathlib
import statistics

import pytest

from benchmarks.common.errors import InputError
from benchmarks.common.flags import CommonConfig
from benchmarks.physics_iq import csv_file, verified_score
from benchmarks.physics_iq_verified import runner
from tools.fixtures import physics_iq_tree


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return physics_iq_tree.write_tree(tmp_path_factory.mktemp("tree"))


def _run(tree, runs, out, **common):
    return runner.run(runner.VerifiedConfig(
        common=CommonConfig(device="cpu", **common), real_dir=tree.benchmark,
        generated_dirs=tuple(tree.generated[r] for r in runs), descriptions=tree.descriptions,
        output_dir=out, model_name="m"))


def test_two_runs_give_each_runs_files_and_the_mean_and_std_over_runs(tree, tmp_path):
    card = _run(tree, ("follows", "freezes"), tmp_path / "out")
    metrics = {m.id: m for m in card.metrics}
    per_run = {}
    for run in ("follows", "freezes"):
        values = json.loads(pathlib.Path(card.output_files[f"metrics_json:{run}"]).read_text())
        rows = csv_file.read_csv(card.output_files[f"metrics_csv:{run}"])
        assert values == verified_score.metrics_json(rows)
        assert 0.0 <= values["final_score_view"] <= 1.0
        per_run[run] = values
    for name, key, _, _ in runner.metric_specs.SCORES:
        scores = [per_run[r][key] * 100 for r in ("follows", "freezes")]
        assert metrics[f"{name}_mean"].value == pytest.approx(statistics.fmean(scores), 1e-12)
        assert metrics[f"{name}_std"].value == pytest.approx(statistics.stdev(scores), 1e-9)
        assert metrics[f"{name}_mean"].sample_count == 2
    assert per_run["follows"]["final_score_view"] > per_run["freezes"]["final_score_view"]
    assert card.coverage.evaluated_by_split["follows"] == 9
    assert card.coverage.evaluated_by_split["freezes"] == 9


def test_one_run_has_no_std(tree, tmp_path):
    card = _run(tree, ("diverges",), tmp_path / "out")
    metrics = {m.id: m for m in card.metrics}
    assert metrics["physiq_mean"].available
    assert not metrics["physiq_std"].available
    assert "two runs" in metrics["physiq_std"].unavailable_reason


def test_more_than_four_runs_or_twice_the_same_name_is_refused(tree, tmp_path):
    with pytest.raises(InputError, match="1 to 4 run folders"):
        runner.run(runner.VerifiedConfig(
            common=CommonConfig(device="cpu"), real_dir=tree.benchmark,
            generated_dirs=(tree.generated["follows"],) * 2, descriptions=tree.descriptions,
            output_dir=tmp_path / "out", model_name="m"))
