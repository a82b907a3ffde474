"""The parity table's arithmetic, its file format, drift detection and the committed table."""

import dataclasses

import numpy as np
import pytest
import torch

from benchmarks.common import paths
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


def test_from_an_exact_zero_drift_allows_up_to_the_tolerance_on_another_cpu():
    exact = _row(max_abs_diff=0.0, max_rel_diff=0.0)
    other_cpu = _row(max_abs_diff=4e-6, max_rel_diff=8.9e-6)  # scale 0.45, tolerance 1e-5
    assert parity_table.drift([other_cpu], [exact]) == []
    assert parity_table.drift([exact], [other_cpu]) == []
    assert parity_table.drift([_row(max_abs_diff=9e-6, max_rel_diff=2e-5)], [exact])


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
