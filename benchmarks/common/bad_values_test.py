"""The bad-inputs suite's value cases on toys: they pass an importer and a runner that
keep impossible values out, and fail ones that let them through (so a benchmark plugged
into them is really checked)."""

import json
import pathlib
import types

import pytest

from benchmarks.common import bad_import_values
from benchmarks.common import bad_inputs
from benchmarks.common import engine
from benchmarks.common import gate
from benchmarks.common import sample_loop
from benchmarks.common import scorecard as card_lib
from benchmarks.common.flags import CommonConfig
from benchmarks.common.metric_table import MetricTable
from benchmarks.common.metric_table import ValueChecks
from proto import scorecard_pb2

SPEC = card_lib.MetricSpec("m", "M", "0-1", True, official_range=(0.0, 1.0))
TABLE = MetricTable("Toy", (SPEC,))
CLEAN = {"a": 0.25, "b": 0.5, "c": 0.75}


def test_the_cases_a_range_allows():
    names = lambda bounds: [c.name for c in bad_inputs.value_cases(bounds)]  # noqa: E731
    assert names((0.0, 1.0)) == ["nan", "infinity", "above_official_range",
                                 "below_official_range"]
    assert names((0.0, None)) == ["nan", "infinity", "below_official_range"]
    assert names(None) == ["nan", "infinity"]
    above, below = (bad_inputs.value_cases((-1.0, 1.0))[i].value((-1.0, 1.0)) for i in (2, 3))
    assert above == 2.0 and below == -2.0


# --- a toy importer: values.json {id: value} -> one row per id, metric "m" their mean.

def _write(folder: pathlib.Path, value):
    values = dict(CLEAN, **({} if value is None else {"b": value}))
    (folder / "values.json").write_text(json.dumps(values))  # NaN, Infinity as json writes


def _importer(leaky: bool):
    def load(folder: pathlib.Path):
        checks, rows = ValueChecks(TABLE), []
        for sample_id, value in json.loads((folder / "values.json").read_text()).items():
            row = scorecard_pb2.SampleScore(sample_id=sample_id, split="toy")
            reason = checks.check(f"values.json {sample_id}", "m", value)
            if reason and not leaky:
                row.unavailable["m"] = reason
            else:
                row.metrics["m"] = value
            rows.append(row)
        card = scorecard_pb2.Scorecard(notes=checks.notes())
        card.metrics.append(card_lib.aggregate(SPEC, rows, scorecard_pb2.Backend()))
        return card, rows
    return load


def _import_harness(tmp_path, leaky=False):
    suite = bad_import_values.ImportSuite(_write, _importer(leaky), "m", ("toy", "b"),
                                          SPEC.official_range)
    return bad_import_values.ImportHarness(suite, tmp_path)


@pytest.mark.parametrize("name", [c.name for c in bad_inputs.VALUE_CASES])
def test_an_importer_that_refuses_impossible_values_passes(tmp_path, name):
    harness = _import_harness(tmp_path)
    harness.check(harness.case(name))


@pytest.mark.parametrize("name", [c.name for c in bad_inputs.VALUE_CASES])
def test_an_importer_that_keeps_them_fails(tmp_path, name):
    harness = _import_harness(tmp_path, leaky=True)
    with pytest.raises(AssertionError, match=name):
        harness.check(harness.case(name))


# --- a toy runner through the engine: tree/<id>.txt holds the value of "m".

def _evaluate(ctx, config):
    items = ctx.select(sorted(p.stem for p in config.tree.glob("*.txt")), lambda i: ("toy", i))
    outcome = ctx.evaluate(engine.Pass(
        label="toy", items=items, ref=lambda i: sample_loop.SampleRef(i, "toy"),
        load=lambda i: float((config.tree / f"{i}.txt").read_text()),
        score=lambda i, v: scorecard_pb2.SampleScore(sample_id=i, split="toy",
                                                     metrics={"m": v}),
        settings={"toy": 1}, prefetch=False))
    return engine.Evaluation(
        metrics=[card_lib.aggregate(SPEC, outcome.samples, scorecard_pb2.Backend())],
        samples=list(outcome.samples), expected=items, found=items, expected_source="toy",
        facts=gate.Facts(), inputs={})


def _runner(table):
    def invoke(tree: pathlib.Path, out: pathlib.Path, resume: bool) -> bad_inputs.Run:
        config = types.SimpleNamespace(
            common=CommonConfig(output_dir=str(out), resume=resume), output_dir=str(out),
            model_name="toy", recorded_flags={}, bundled_sample=False, tree=tree)
        card = engine.run(engine.Benchmark("toy", "toy/1", _evaluate, table=table), config)
        return bad_inputs.Run(1 if card.coverage.internal_error_sample_ids else 0)
    return invoke


def _build(tree: pathlib.Path):
    for sample_id, value in CLEAN.items():
        (tree / f"{sample_id}.txt").write_text(str(value))


DEFECTS = bad_inputs.computed_value_defects(("toy", "b"), "m", SPEC.official_range)


def test_the_runner_cases_are_nan_and_one_value_outside():
    assert [d.name for d in DEFECTS] == ["computed_nan", "computed_above_official_range"]
    assert [d.name for d in bad_inputs.computed_value_defects(("toy", "b"), "m", (0, None))
            ] == ["computed_nan", "computed_below_official_range"]


@pytest.mark.parametrize("name", [d.name for d in DEFECTS])
def test_a_runner_whose_engine_screens_its_values_passes(tmp_path, name):
    harness = bad_inputs.Harness(bad_inputs.Suite(_build, _runner(TABLE), DEFECTS), tmp_path)
    harness.check(harness.defect(name))


@pytest.mark.parametrize("name", [d.name for d in DEFECTS])
def test_a_runner_whose_values_are_not_screened_fails(tmp_path, name):
    harness = bad_inputs.Harness(bad_inputs.Suite(_build, _runner(None), DEFECTS), tmp_path)
    with pytest.raises(AssertionError, match=name):
        harness.check(harness.defect(name))
