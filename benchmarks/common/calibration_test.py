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


def test_a_recorded_row_is_not_verified_and_says_what_was_recorded():
    """A comparison CI does not recompute (our side a stored number) never verifies,
    however small its differences; the scope gives its date, commits and what it
    compared."""
    rows = _rows()
    rows[1] = dataclasses.replace(rows[1], recorded="2026-01-02, worldeval @abc vs up @def")
    parity = calibration.parity_from_rows("b", rows, "hand-off against a stand-in")
    assert not parity.verified and not parity.evidence
    assert parity.scope == (
        "hand-off against a stand-in; features: recorded comparison (2026-01-02, worldeval "
        "@abc vs up @def; f vs g), not recomputed by CI (tools/calibration/parity.csv rows "
        "'b')")


def test_the_committed_table_verifies_its_recomputed_backends_only():
    table = calibration.by_backend(calibration.read(
        calibration.paths.runfile(calibration.TABLE)))
    assert {"lpips-v0.1-alex", "laion-aesthetic-clip-vit-l14", "clip-vit-b32"} <= set(table)
    for backend, rows in table.items():
        recorded = any(r.recorded for r in rows)
        assert calibration.parity(backend).verified != recorded, backend
    # MapAnything's preprocess and features rows compare two numbers stored by one run
    # outside the repository (CI cannot run map-anything): recorded, so not verified.
    mapanything = calibration.parity("mapanything")
    assert not mapanything.verified
    assert "preprocess: recorded comparison (2026-12-01, worldeval @3fdcfd8" in \
        mapanything.scope and "not recomputed by CI" in mapanything.scope
    assert not calibration.parity("no-such-backend").verified


def test_a_composite_backend_is_verified_only_when_every_part_is():
    both = calibration.parity("lpips-v0.1-alex + clip-vit-b32")
    assert both.verified and "lpips-v0.1-alex: tools/calibration" in both.evidence
    assert " | clip-vit-b32: " in both.scope
    half = calibration.parity("lpips-v0.1-alex + no-such-backend", "checked X")
    assert not half.verified and half.scope == "checked X; no-such-backend: no entry in " \
        "tools/calibration/parity.csv"
