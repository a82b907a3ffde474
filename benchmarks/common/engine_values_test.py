"""A runner's own values held to its metric table's ranges (computed_values.py, through
engine.Context.loop): an impossible value is that (sample, metric)'s internal error, out
of the headline; a value outside only the nominal range is kept with a warning; a value
inside the range is stored exactly as computed."""

import json
import math
import pathlib
import types

import pytest

from benchmarks.common import computed_values
from benchmarks.common import engine
from benchmarks.common import gate
from benchmarks.common import sample_loop
from benchmarks.common import scorecard as card_lib
from benchmarks.common.flags import CommonConfig
from benchmarks.common.metric_table import MetricTable
from proto import scorecard_pb2

TCS = card_lib.MetricSpec("tcs", "TCS", "0-1", True, official_range=(None, 1.0),
                          nominal_range=(0.0, 1.0))
SSIM = card_lib.MetricSpec("ssim", "SSIM", "0-1", True, official_range=(-1.0, 1.0))
FREE = card_lib.MetricSpec("free", "Free", "x", True)  # no range: any finite value
TABLE = MetricTable("Toy", (TCS, SSIM, FREE))


def _sample(sample_id="a", **metrics):
    return scorecard_pb2.SampleScore(sample_id=sample_id, split="toy", metrics=metrics)


def test_values_inside_their_range_are_stored_exactly_as_computed():
    values = {"tcs": 0.1 + 0.2, "ssim": -1.0000005, "free": -1e300, "raw:x": math.nan}
    sample = computed_values.screen(TABLE, _sample(**values))
    assert dict(sample.metrics) == pytest.approx(values, nan_ok=True, abs=0, rel=0)
    assert not sample.unavailable and not sample_loop.is_internal_error(sample)
    assert computed_values.VALUE_WARNINGS not in sample.diagnostics


@pytest.mark.parametrize("metric, value, found", [
    ("tcs", 1.5, "toy/a: tcs 1.5 is outside its official range [-inf, 1]"),
    ("ssim", -3.0, "toy/a: ssim -3.0 is outside its official range [-1, 1]"),
    ("ssim", math.nan, "toy/a: ssim nan is not a finite number"),
    ("free", -math.inf, "toy/a: free -inf is not a finite number"),
])
def test_an_impossible_value_is_the_samples_internal_error_for_that_metric(metric, value,
                                                                            found):
    sample = computed_values.screen(TABLE, _sample(**{metric: value, "tcs_other": 2.0}))
    assert metric not in sample.metrics and sample.metrics["tcs_other"] == 2.0
    reason = sample.unavailable[metric]
    assert found in reason and "a worldeval bug" in reason, reason
    assert sample_loop.is_internal_error(sample) and not sample.error
    assert computed_values.refused([sample]) == [("toy/a", metric, reason)]


def test_outside_nominal_only_is_kept_with_a_warning():
    sample = computed_values.screen(TABLE, _sample(tcs=-0.25))
    assert sample.metrics["tcs"] == -0.25 and not sample_loop.is_internal_error(sample)
    assert "toy/a: tcs -0.25 is outside its nominal range [0, 1] (kept" in sample.diagnostics[
        computed_values.VALUE_WARNINGS]


def test_an_error_row_is_left_alone():
    sample = _sample(ssim=9.0)
    sample.error = "unreadable"
    assert computed_values.screen(TABLE, sample).metrics["ssim"] == 9.0


# A toy benchmark through the engine: four samples, ssim = the loaded number; "s2" is 7.
IDS = ["s0", "s1", "s2", "s3"]
VALUES = {"s0": 0.5, "s1": 0.25, "s2": 7.0, "s3": -0.5}


def _evaluate(ctx, config):
    items = ctx.select(IDS, lambda i: ("toy", i))
    outcome = ctx.evaluate(engine.Pass(
        label="toy", items=items, ref=lambda i: sample_loop.SampleRef(i, "toy"),
        load=VALUES.get, score=lambda item, v: _sample(item, ssim=v), settings={"toy": 1},
        prefetch=False))
    return engine.Evaluation(
        metrics=[card_lib.aggregate(SSIM, outcome.samples, scorecard_pb2.Backend(name="toy"))],
        samples=list(outcome.samples), expected=items, found=items, expected_source="toy",
        facts=gate.Facts(), inputs={}, raw_table_metrics=["ssim"])


def _run(out: pathlib.Path, table):
    config = types.SimpleNamespace(
        common=CommonConfig(output_dir=str(out)), output_dir=str(out),
        model_name="toy-model", recorded_flags={}, bundled_sample=False)
    return engine.run(engine.Benchmark("toy", "toy/1", _evaluate, table=table), config)


def test_the_engine_keeps_an_impossible_value_out_of_the_headline_and_counts_it(tmp_path):
    card = _run(tmp_path, MetricTable("Toy", (SSIM,)))
    ssim = card.metrics[0]
    assert ssim.value == pytest.approx((0.5 + 0.25 - 0.5) / 3) and ssim.sample_count == 3
    assert list(ssim.missing_sample_ids) == ["toy/s2"]
    assert "ssim 7.0 is outside its official range [-1, 1]" in ssim.missing_reasons["toy/s2"]
    assert list(card.coverage.internal_error_sample_ids) == ["toy/s2"]
    assert card.coverage.failed == 0 and card.coverage.evaluated == 4
    assert scorecard_pb2.INTERNAL_ERRORS in {b.reason for b in card.verification.blocking}
    note = next(n for n in card.notes if n.startswith("1 computed values are not finite"))
    assert note.endswith("toy/s2: ssim 7.0 is outside its official range [-1, 1]"), note
    rows = [json.loads(line) for line in (tmp_path / "per_sample_scores.jsonl")
            .read_text().splitlines()]
    bad = next(r for r in rows if r["sample_id"] == "s2")
    assert "ssim" not in bad.get("metrics", {}) and "worldeval bug" in bad["unavailable"]["ssim"]
    assert [r["metrics"]["ssim"] for r in rows if r["sample_id"] != "s2"] == [0.5, 0.25, -0.5]


def test_resumed_the_impossible_value_is_still_counted(tmp_path):
    table = MetricTable("Toy", (SSIM,))
    _run(tmp_path, table)
    config = types.SimpleNamespace(
        common=CommonConfig(output_dir=str(tmp_path), resume=True), output_dir=str(tmp_path),
        model_name="toy-model", recorded_flags={}, bundled_sample=False)
    card = engine.run(engine.Benchmark("toy", "toy/1", _evaluate, table=table), config)
    assert list(card.coverage.internal_error_sample_ids) == ["toy/s2"]
    assert card.metrics[0].sample_count == 3


def test_without_the_check_the_value_would_reach_the_headline(tmp_path):
    """The toy is a real test of the check: with no table, 7.0 enters the mean."""
    card = _run(tmp_path, None)
    assert card.metrics[0].sample_count == 4 and card.metrics[0].value == pytest.approx(7.25 / 4)
    assert not card.coverage.internal_error_sample_ids


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
