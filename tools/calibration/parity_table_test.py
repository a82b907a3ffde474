"""The parity table's arithmetic, its file format, drift detection and the committed table."""

import dataclasses

import numpy as np
import pytest
import torch

from benchmarks.common import paths
from tools.calibration import parity_check
from tools.calibration import parity_table


def _row(**changes):
    row = parity_table.Row("b", "//t:t", "score", "ours vs theirs", "pkg 1.0", "random (seed 0)",
                           "4 frames", 1e-5, 2e-7, 1e-7)
    return dataclasses.replace(row, **changes)


def test_differences_are_absolute_and_relative_to_the_reference_scale():
    assert parity_table.differences(np.array([1.0, 2.0, 4.5]), np.array([1.0, 2.0, 4.0])) == \
        (0.5, 0.5 / 4.0)
    assert parity_table.differences(torch.zeros(3), torch.zeros(3)) == (0.0, 0.0)


def test_differences_pool_lists_of_differently_shaped_tensors():
    ours = [np.ones((2, 2)), np.full(3, 10.0)]
    theirs = [np.ones((2, 2)), np.array([10.0, 10.0, 9.0])]
    assert parity_table.differences(ours, theirs) == (1.0, 0.1)


@pytest.mark.parametrize("ours, theirs", [(np.ones(3), np.ones(4)),
                                          ([np.ones(2)], [np.ones(2), np.ones(2)]),
                                          (np.array([np.nan]), np.array([1.0]))])
def test_differences_refuse_mismatched_or_non_finite_inputs(ours, theirs):
    with pytest.raises(ValueError):
        parity_table.differences(ours, theirs)


def test_a_row_passes_only_within_its_tolerance():
    assert _row().passed
    assert not _row(max_rel_diff=2e-5).passed
    assert _row().random_weights and not _row(weights="real: alex.pth").random_weights


def test_write_then_read_round_trips(tmp_path):
    rows = [_row(), _row(check="preprocess", max_abs_diff=0.0, max_rel_diff=0.0,
                         recorded="2026-01-02, worldeval @abc vs pkg @def")]
    path = tmp_path / "t.csv"
    path.write_text(parity_table.write(rows))
    back = parity_table.read(path)
    assert [r.check for r in back] == ["preprocess", "score"]  # sorted by check order
    assert back == rows[::-1]


def test_read_names_the_file_and_line_of_a_bad_number(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(parity_table.write([_row()]).replace("1e-07", "small"))
    with pytest.raises(ValueError, match=r"t\.csv:2"):
        parity_table.read(path)


def test_drift_tolerates_rounding_but_not_a_changed_computation():
    assert parity_table.drift([_row(max_rel_diff=3e-7)], [_row()]) == []
    assert parity_table.drift([_row(max_rel_diff=5e-5)], [_row()])   # 500x: a real change
    assert parity_table.drift([_row(max_abs_diff=0.0)], [_row()])    # exact vs not
    assert parity_table.drift([_row(reference="pkg 2.0")], [_row()])  # another version
    assert parity_table.drift([], [_row()]) == []                     # other backends' rows
    assert parity_table.drift([_row(check="features")], [_row()])    # missing + extra
    assert parity_table.drift([_row(recorded="2026-01-02, x")], [_row()])  # recorded vs not


def test_from_an_exact_zero_drift_is_bounded_by_the_cross_cpu_difference_not_the_tolerance():
    exact = _row(max_abs_diff=0.0, max_rel_diff=0.0)
    bound = parity_table.FROM_ZERO
    assert bound <= 0.25 * exact.tolerance
    noise = _row(max_abs_diff=0.45 * 0.9 * bound, max_rel_diff=0.9 * bound)  # scale 0.45
    assert parity_table.drift([noise], [exact]) == []
    assert parity_table.drift([exact], [noise]) == []
    # Within the tolerance (the row passes) but past the cross-CPU bound: drift.
    moved = _row(max_abs_diff=0.45 * 8.9e-6, max_rel_diff=8.9e-6)
    assert moved.passed
    assert len(parity_table.drift([moved], [exact])) == 2  # max_abs_diff and max_rel_diff
    # Bit-exact here against a committed difference: within the tolerance, no drift.
    assert parity_table.drift([exact], [moved]) == []
    assert parity_table.drift([exact], [_row(max_abs_diff=1e-5, max_rel_diff=2e-5)])
    just_past = _row(max_abs_diff=0.45 * 1.5 * bound, max_rel_diff=1.5 * bound)
    assert parity_table.drift([just_past], [exact])


def test_from_zero_uses_the_figure_measured_for_the_row(monkeypatch):
    exact = _row(max_abs_diff=0.0, max_rel_diff=0.0)
    measured = _row(max_abs_diff=1e-6, max_rel_diff=3e-6)
    assert parity_table.drift([measured], [exact])
    monkeypatch.setitem(parity_table.FROM_ZERO_MEASURED, ("b", "score"), (2e-6, "a test"))
    assert parity_table.from_zero(exact) == parity_table.FROM_ZERO_MARGIN * 2e-6
    assert parity_table.drift([measured], [exact]) == []
    assert parity_table.drift([_row(max_abs_diff=3e-6, max_rel_diff=6e-6)], [exact])
    # Never more than the tolerance, whatever the figure.
    monkeypatch.setitem(parity_table.FROM_ZERO_MEASURED, ("b", "score"), (9e-6, "a test"))
    assert parity_table.from_zero(exact) == exact.tolerance


def test_every_measured_cross_cpu_figure_names_its_source_and_stays_under_the_tolerance():
    for (backend, check), (bound, source) in parity_table.FROM_ZERO_MEASURED.items():
        assert check in parity_table.CHECKS and source, (backend, check)
        rows = [r for r in parity_table.read(paths.runfile(parity_table.TABLE))
                if (r.backend, r.check) == (backend, check)]
        assert rows and all(bound < r.tolerance for r in rows), (backend, check)


def test_the_element_bound_holds_each_element_to_its_own_magnitude_above_the_floor():
    theirs = np.array([1000.0, 100.0, 0.0])
    ours = theirs + np.array([0.0, 0.009, 0.0])  # 9e-6 of the peak, 9e-5 of its own value
    assert parity_table.differences(ours, theirs)[1] == pytest.approx(9e-6)
    worst, needed = parity_table.element_bound(ours, theirs, 1e-5, floor=1.0)
    assert worst == pytest.approx(9e-6)
    worst, needed = parity_table.element_bound(ours, theirs, 1e-5, floor=0.01)
    assert worst == pytest.approx(9e-5) and needed == pytest.approx(0.9)
    # Near zero the floor decides: an element at 0 may move by tolerance * floor * peak.
    near_zero = theirs + np.array([0.0, 0.0, 5e-5])
    assert parity_table.element_bound(near_zero, theirs, 1e-5, floor=0.01) == \
        (pytest.approx(5e-6), pytest.approx(5e-3))
    assert parity_table.element_bound(theirs, theirs, 1e-5, floor=0.0) == (0.0, 0.0)
    assert parity_table.element_bound(near_zero, theirs, 1e-5, floor=0.0)[0] == np.inf


def test_the_element_bound_pools_lists_on_the_largest_official_value():
    ours = [np.array([10.0]), np.array([0.1 + 1e-7])]
    theirs = [np.array([10.0]), np.array([0.1])]
    worst, needed = parity_table.element_bound(ours, theirs, 1e-5, floor=0.001)
    assert worst == pytest.approx(1e-6) and needed == 0.0


def test_compare_applies_the_row_floor(monkeypatch):
    common = dict(test="//t:t", compared="c", reference="r", weights="random", inputs="i")
    ours, theirs = np.array([1000.0, 100.004]), np.array([1000.0, 100.0])
    row = parity_table.compare("b", "score", ours, theirs, **common)
    assert row.max_rel_diff == pytest.approx(4e-6) and row.passed  # the old measure
    assert row.floor == pytest.approx(parity_table.FROM_ZERO / row.tolerance)
    assert row.element_ratio == pytest.approx(0.004 / (row.floor * 1000.0))
    assert not row.elements_passed
    monkeypatch.setitem(parity_table.FLOORS, ("b", "score"), 1.0)
    row = parity_table.compare("b", "score", ours, theirs, **common)
    assert row.elements_passed and row.element_ratio == pytest.approx(4e-6)
    assert isinstance(row, parity_table.Row) and parity_table.drift([row], [row]) == []


def test_a_row_within_its_cross_cpu_bound_meets_its_element_bound(monkeypatch):
    exact = _row(max_abs_diff=0.0, max_rel_diff=0.0)
    assert parity_table.row_floor(exact) * exact.tolerance >= parity_table.from_zero(exact)
    monkeypatch.setitem(parity_table.FROM_ZERO_MEASURED, ("b", "score"), (4e-6, "a test"))
    assert parity_table.row_floor(exact) == pytest.approx(0.8)
    assert parity_table.row_floor(_row(tolerance=1e-12)) == 1.0


def test_every_stated_floor_is_a_fraction_of_the_peak():
    assert 0.0 < parity_table.DEFAULT_FLOOR <= 1.0
    for key, floor in parity_table.FLOORS.items():
        assert key[1] in parity_table.CHECKS and 0.0 < floor <= 1.0, key


def test_the_committed_table_is_complete_and_passing():
    rows = parity_table.read(paths.runfile(parity_table.TABLE))
    table = parity_table.by_backend(rows)
    assert table, "empty parity table"
    for backend, entries in table.items():
        assert {r.check for r in entries} == set(parity_table.CHECKS), backend
        # A check may have several rows (e.g. Q-Align's scores in float32, in float16,
        # and its MSS rules), each saying what it compared.
        assert len({(r.check, r.compared) for r in entries}) == len(entries), backend
        assert all(r.passed for r in entries), backend
        assert len({r.test for r in entries}) == 1 and entries[0].test.startswith("//"), backend


def test_a_parity_test_fails_on_an_element_past_its_bound_and_on_drift_from_zero(monkeypatch):
    table = parity_table.by_backend(parity_table.read(paths.runfile(parity_table.TABLE)))
    exact = next(rows for rows in table.values()  # a backend bit-exact in every row
                 if all(r.max_rel_diff == 0.0 and r.tolerance >= 1e-5 for r in rows))
    rows = [parity_table.Measured(**{f: getattr(r, f) for f in parity_table.FIELDS})
            for r in exact]
    parity_check.assert_rows(rows)
    bad = dataclasses.replace(rows[0], element_ratio=2 * rows[0].tolerance, floor=0.01)
    with pytest.raises(AssertionError, match="an element is"):
        parity_check.assert_rows([bad] + rows[1:])
    rel = 0.5 * rows[0].tolerance  # passes the tolerance; past the cross-CPU bound
    moved = dataclasses.replace(rows[0], max_rel_diff=rel, max_abs_diff=rel)
    with pytest.raises(AssertionError, match="stale"):
        parity_check.assert_rows([moved] + rows[1:])


def test_a_measured_figure_bounds_drift_from_a_committed_difference_too(monkeypatch):
    """A row with a measured cross-CPU figure may move past the factor of 10 within
    FROM_ZERO_MARGIN times that figure (ViCLIP's score), not beyond; others may not."""
    committed = _row(max_abs_diff=1.5e-8, max_rel_diff=1.5e-7)
    moved = _row(max_abs_diff=2.1e-7, max_rel_diff=2.1e-6)  # 14x
    assert len(parity_table.drift([moved], [committed])) == 2
    monkeypatch.setitem(parity_table.FROM_ZERO_MEASURED, ("b", "score"), (2.2e-6, "a test"))
    assert parity_table.drift([moved], [committed]) == []
    further = _row(max_abs_diff=5e-7, max_rel_diff=5e-6)
    assert len(parity_table.drift([further], [committed])) == 2
