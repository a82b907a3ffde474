"""The shared bad-inputs suite's value cases for importers (testonly): every importer
refuses the same impossible values (bad_inputs.VALUE_CASES: NaN, an infinity, above and
below a metric's official range) in its own file format.

A benchmark plugs in, in its bad_inputs_test.py:

  write(folder, value)   writes its official output files under `folder` (a small set of
                         rows), with `sample`'s `metric` replaced by `value` (None: the
                         clean files), as the official tool writes them;
  load(folder)           imports them: (scorecard, per-sample rows);
  metric, sample         which value the cases replace; `bounds` its official range (the
                         metric table's, on the per-sample file's scale);
  empty_nan              the format writes NaN as an empty cell (pandas to_csv), which
                         the official code reads as no value: the NaN case then checks
                         only that the value is absent, as an empty cell is.

`ImportHarness(suite, workdir)` imports the clean files once; `check(case)` writes and
imports the damaged ones and asserts (with a message naming the case): the row's metric
is missing, its reason naming the metric and the refusal (e.g. "nan is not a finite
number"); the metric's headline is over the other rows only (one fewer sample, the
refused row in its coverage with the reason) and finite; a note lists the refused value;
every other value of every row equals the clean import's (the damaged row's raw copies
of the metric, "raw:<metric>", aside).
"""

import dataclasses
import math
import pathlib
from typing import Callable, Dict, Optional, Sequence, Tuple

from benchmarks.common import bad_inputs

IMPORT_NOTE = "imported values are not finite or outside their metric's official range"


@dataclasses.dataclass(frozen=True)
class ImportSuite:
    write: Callable[[pathlib.Path, Optional[float]], None]
    load: Callable[[pathlib.Path], Tuple[object, Sequence[object]]]  # (Scorecard, rows)
    metric: str
    sample: bad_inputs.Key
    bounds: Tuple[Optional[float], Optional[float]]
    empty_nan: bool = False

    @property
    def cases(self):
        return bad_inputs.value_cases(self.bounds)


def _rows(samples) -> Dict[bad_inputs.Key, object]:
    return {(s.split, s.sample_id): s for s in samples}


def _holds(key: str, metric: str) -> bool:
    """Whether a row's metrics key holds `metric`'s value: the metric itself, or its raw
    copy ("raw:<metric>", "raw:<metric>:<component>"), which an importer may drop too."""
    return metric in key.split(":")


def _result(card, metric: str):
    return next(m for m in card.metrics if m.id == metric)


class ImportHarness:
    """Imports the clean files once; `check` runs one value case against them."""

    def __init__(self, suite: ImportSuite, workdir: pathlib.Path):
        self.suite = suite
        self.workdir = pathlib.Path(workdir)
        clean = self.workdir / "clean"
        clean.mkdir(parents=True)
        suite.write(clean, None)
        self.card, samples = suite.load(clean)
        self.rows = _rows(samples)
        assert suite.sample in self.rows, (suite.sample, sorted(self.rows))
        assert suite.metric in self.rows[suite.sample].metrics, "the clean row has no value"
        assert _result(self.card, suite.metric).available, "the clean headline is missing"

    def case(self, name: str) -> bad_inputs.ValueCase:
        return next(c for c in self.suite.cases if c.name == name)

    def check(self, case: bad_inputs.ValueCase):
        """Runs `case` (see the module docstring); returns (scorecard, rows)."""
        suite, name = self.suite, case.name
        folder = self.workdir / name
        folder.mkdir(parents=True)
        suite.write(folder, case.value(suite.bounds))
        card, samples = suite.load(folder)
        rows = _rows(samples)
        assert set(rows) == set(self.rows), (name, sorted(rows))
        row = rows[suite.sample]
        assert suite.metric not in row.metrics, (name, "the value was kept")
        for key, clean in self.rows.items():
            want = {k: v for k, v in clean.metrics.items()
                    if key != suite.sample or not _holds(k, suite.metric)}
            got = {k: v for k, v in rows[key].metrics.items()
                   if key != suite.sample or not _holds(k, suite.metric)}
            assert got == want, (name, key)
        result, before = _result(card, suite.metric), _result(self.card, suite.metric)
        if before.sample_count > 1:
            assert result.available and math.isfinite(result.value), (name, result)
            assert result.sample_count == before.sample_count - 1, (name, result)
        if name == "nan" and suite.empty_nan:
            return card, samples
        reason = row.unavailable.get(suite.metric, "")
        assert suite.metric in reason and case.fragment in reason, (name, reason)
        if result.available:
            assert any(case.fragment in r for r in result.missing_reasons.values()), (
                name, dict(result.missing_reasons))
        assert any(IMPORT_NOTE in n and suite.metric in n for n in card.notes), (
            name, list(card.notes))
        return card, samples


def pytest_tests(suite: ImportSuite):
    """A benchmark test module's fixture and test over every case of `suite`:

      import_harness, test_import_value = bad_import_values.pytest_tests(IMPORT)
    """
    import pytest  # pylint: disable=import-outside-toplevel  (only test modules call this)

    @pytest.fixture(scope="module", name="import_harness")
    def harness(tmp_path_factory):
        return ImportHarness(suite, tmp_path_factory.mktemp("import_values"))

    @pytest.mark.parametrize("name", [c.name for c in suite.cases])
    def test_import_value(import_harness, name):
        import_harness.check(import_harness.case(name))

    return harness, test_import_value
