"""compare: paired differences on a hand-made pair of runs with a known answer
(tools/report/testdata.py), the warnings, and one subprocess run of the binary."""

import json

import numpy as np
import pytest

from metrics.testing import binary_runner
from tools.report import compare_format
from tools.report import compare_lib
from tools.report import runs as runs_lib
from tools.report import testdata

COMPARE = binary_runner.Binary("tools/report", "compare", "tools.report.compare_main")


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    return testdata.write_pair(tmp_path_factory.mktemp("runs"))


@pytest.fixture(scope="module")
def result(pair):
    a, b = runs_lib.load_runs(pair)
    return compare_lib.compare(a, b, seed=11, resamples=1000)


def _metric(cmp, key):
    return next(m for m in cmp.metrics if m.key == key)


def test_difference_is_b_minus_a_over_the_samples_both_evaluated(result):
    score = _metric(result, "score")
    assert (score.n_a, score.n_b, score.paired) == (4, 5, 4)  # s5 only in B, s9 failed in A
    assert score.mean_a == 2.5 and score.mean_b == 3.75 and score.difference == 1.25
    rng = np.random.default_rng(11)
    diffs = np.array([1.0, 2.0, 0.0, 2.0])  # s1..s4, in sample-key order
    means = diffs[rng.integers(0, 4, size=(1000, 4))].mean(axis=1)
    assert (score.low, score.high) == pytest.approx(tuple(np.percentile(means, [2.5, 97.5])))
    assert score.excludes_zero == (score.low > 0) and score.low >= 0
    assert any("4 samples both evaluated (A has 4, B 5)" in w for w in score.warnings)
    assert any("backend differs: toy-backend vs other-backend" in w for w in score.warnings)


def test_lower_is_better_metric_names_the_better_run(result):
    err = _metric(result, "err")
    assert err.difference == -0.25 and (err.low, err.high) == (-0.25, -0.25)
    assert err.excludes_zero and err.better == "B"


def test_metrics_without_paired_values_say_why(result):
    assert "no sample carries a value in both runs" in _metric(result, "fid").unavailable
    assert _metric(result, "judge").unavailable == "unavailable in model-b"
    assert _metric(result, "judge").difference is None


def test_run_level_warnings_flag_the_comparison(result):
    assert result.warnings == ["coverage differs: 0 samples only in A, 1 only in B, "
                               "4 in both"]
    assert result.flagged and result.seed == 11 and "seed 11" in result.interval_method


def test_a_run_against_itself_is_not_flagged(pair):
    a, again = runs_lib.load_runs([pair[0], pair[0]])
    assert (a.label, again.label) == ("model-a #1", "model-a #2")
    cmp = compare_lib.compare(a, again, seed=0, resamples=200)
    assert not cmp.flagged
    score = _metric(cmp, "score")
    assert (score.difference, score.low, score.high, score.excludes_zero) == (0, 0, 0, False)


def test_protocol_and_flag_differences_are_warnings(pair, tmp_path):
    a, b = (runs_lib.load_run(p).card for p in pair)
    a.run.flags.update({"max_side": "640", "generated_dir": "/x", "output_dir": "/o"})
    b.run.flags.update({"max_side": "32", "generated_dir": "/y", "output_dir": "/p"})
    b.verification.deviations.append("--max_side=32 (official: 640)")
    runs = runs_lib.load_runs([testdata.write_run(tmp_path / "a", a, None),
                               testdata.write_run(tmp_path / "b", b, None)])
    warnings = compare_lib.run_warnings(*runs)
    assert "run flags differ: max_side=640 vs 32" in warnings
    assert "protocol differs: deviations none vs ['--max_side=32 (official: 640)']" in warnings
    assert not any("generated_dir" in w or "output_dir" in w for w in warnings)


def test_metric_selection_and_unknown_metrics(pair):
    a, b = runs_lib.load_runs(pair)
    assert [m.key for m in compare_lib.compare(a, b, ["err"]).metrics] == ["err"]
    with pytest.raises(runs_lib.RunError, match="unknown metric.*nope.*A's metrics: err"):
        compare_lib.compare(a, b, ["nope"])


def test_runs_of_different_benchmarks_are_refused(pair, tmp_path):
    other = runs_lib.load_run(pair[1]).card
    other.benchmark_id = "otherbench"
    path = testdata.write_run(tmp_path / "other", other, None)
    with pytest.raises(runs_lib.RunError, match="different benchmarks"):
        runs_lib.load_runs([pair[0], path])


def test_formats(result):
    table = compare_format.table(result)
    assert "FLAGGED" in table and "seed 11" in table
    row = next(l for l in table.splitlines() if l.startswith("err "))
    assert "-0.25" in row and "B better" in row
    assert "| score |" in compare_format.markdown(result)
    data = json.loads(compare_format.as_json(result))
    assert data["seed"] == 11 and data["flagged"] is True


def test_binary_json_in_process(pair, tmp_path):
    done = COMPARE.run(tmp_path, f"--scorecards={pair[0]},{pair[1]}", "--format=json",
                       "--seed=3", "--metrics=score")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["seed"] == 3 and [m["difference"] for m in data["metrics"]] == [1.25]


def test_binary_subprocess(pair, tmp_path):
    done = COMPARE.run_subprocess(tmp_path, f"--scorecards={pair[0]},{pair[1]}")
    assert done.returncode == 0, done.stderr
    assert "A = model-a; B = model-b" in done.stdout and "1.25" in done.stdout
    bad = COMPARE.run_subprocess(tmp_path, f"--scorecards={pair[0]}")
    assert bad.returncode == 2 and "two files" in bad.stderr


def test_an_unusable_scorecard_is_one_line_and_exit_2(pair, tmp_path):
    bad = tmp_path / "scorecard.json"
    bad.write_text("[]\n")
    done = COMPARE.run(tmp_path, f"--scorecards={pair[0]},{bad}")
    assert done.returncode == 2, done.stderr
    assert done.stderr == (f"error: {bad}: expected {runs_lib.SCORECARD_EXPECTED}, found a "
                           "JSON array, not an object\n")
