"""Parity facts from the parity table: verified only with a complete, passing entry."""

import dataclasses

from benchmarks.common import calibration


def _rows(backend="b", weights="random (seed 0)", **changes):
    base = calibration.Row(backend, "//tools/calibration:x_test", "score", "f vs g",
                           "pkg 1.0", weights, "12 frames", 1e-5, 1e-7, 2e-7)
    return [dataclasses.replace(base, check=c, **changes) for c in calibration.CHECKS]


def test_a_complete_passing_random_weight_entry_is_verified_and_says_so():
    parity = calibration.parity_from_rows("b", _rows())
    assert parity.verified
    assert "tools/calibration/parity.csv rows 'b'" in parity.evidence
    assert "pkg 1.0" in parity.evidence and "//tools/calibration:x_test" in parity.evidence
    assert parity.scope.endswith(calibration.RANDOM_WEIGHTS_SCOPE)
    assert "largest difference seen 2e-07" in parity.scope


def test_real_weights_do_not_claim_random_weights():
    parity = calibration.parity_from_rows("b", _rows(weights="real: alex.pth"))
    assert parity.verified and calibration.RANDOM_WEIGHTS_SCOPE not in parity.scope


def test_no_entry_incomplete_or_failing_is_not_verified():
    assert not calibration.parity_from_rows("b", [], "numpy reference").verified
    assert calibration.parity_from_rows("b", [], "numpy reference").scope.startswith(
        "numpy reference; no entry")
    incomplete = calibration.parity_from_rows("b", _rows()[:2])
    assert not incomplete.verified and "checks missing: score" in incomplete.scope
    failing = calibration.parity_from_rows("b", _rows(max_rel_diff=1e-3))
    assert not failing.verified and "failing" in failing.scope and not failing.evidence


def test_the_committed_table_verifies_its_backends():
    table = calibration.by_backend(calibration.read(
        calibration.paths.runfile(calibration.TABLE)))
    assert {"lpips-v0.1-alex", "laion-aesthetic-clip-vit-l14", "clip-vit-b32"} <= set(table)
    for backend in table:
        assert calibration.parity(backend).verified, backend
    assert not calibration.parity("no-such-backend").verified


def test_a_composite_backend_is_verified_only_when_every_part_is():
    both = calibration.parity("lpips-v0.1-alex + clip-vit-b32")
    assert both.verified and "lpips-v0.1-alex: tools/calibration" in both.evidence
    assert " | clip-vit-b32: " in both.scope
    half = calibration.parity("lpips-v0.1-alex + no-such-backend", "checked X")
    assert not half.verified and half.scope == "checked X; no-such-backend: no entry in " \
        "tools/calibration/parity.csv"
