"""Every normalisation constant, the spec §5.2 test vectors, the §5.4 fallback."""

import numpy as np
import pytest

from benchmarks.worldscore import aspects
from benchmarks.worldscore import normalize

M = aspects.METRICS

# Spec §5.1 / §5.2, retyped from ../shared/specs/worldscore.md (not read from aspects.py).
MIN_MAX = {
    "camera_error": ((0, 0), (15, 0.5), (False, False)),
    "object_detection": (0, 1, True),
    "reprojection_error": (0, 1.0719, False),
    "optical_flow_aepe": (0, 1.1920, False),
    "gram_matrix": (0, 0.0070, False),
    "motion_smoothness": ((0, 0.9224, 0), (82.4014, 1, 0.0228), (False, True, False)),
}
Z_SCORE = {  # avg, std, z_max, z_min
    "clip_score": (26.67, 0.8875, 1.2741, -1.5950),
    "clip_iqa+": (0.5842, 0.0441, 1.8703, -1.8342),
    "clip_aesthetic": (5.5952, 0.2561, 1.9741, -2.9342),
    "motion_accuracy": (-0.1965, 2.3687, 1.5180, -1.6147),
    "optical_flow": (3.2425, 3.4505, 2.7498, -0.8638),
}
# Spec §5.2's raw values for n = 0, 0.25, 0.75, 1 (printed to 3-4 decimals).
VECTORS = {
    "clip_score": (23.981, 25.254, 27.801, 29.074),
    "clip_iqa+": (0.4216, 0.5033, 0.6667, 0.7484),
    "clip_aesthetic": (4.215, 4.844, 6.101, 6.729),
    "motion_accuracy": (-7.732, -4.021, 3.399, 7.109),
    "optical_flow": (-5.972, 0.262, 12.731, 18.965),
}
ASPECT_OF = {m.name: m.aspect for m in M.values()}


def _metric(name):
    return M[(ASPECT_OF[name], name)]


def test_the_table_holds_every_constant_of_the_spec():
    assert set(MIN_MAX) | set(Z_SCORE) == {m.name for m in M.values()}
    for name, (lo, hi, better) in MIN_MAX.items():
        norm = _metric(name).norm
        assert isinstance(norm, aspects.MinMax), name
        assert (norm.empirical_min, norm.empirical_max, norm.higher_is_better) == (lo, hi, better)
    for name, (avg, std, z_max, z_min) in Z_SCORE.items():
        norm = _metric(name).norm
        assert isinstance(norm, aspects.ZScore), name
        assert (norm.avg, norm.std, norm.z_max, norm.z_min) == (avg, std, z_max, z_min)
        assert norm.range == (0.25, 0.75) and norm.higher_is_better is True
    assert _metric("camera_error").combine == "geometric"
    assert _metric("motion_smoothness").combine == "arithmetic"


def test_aspect_lists_and_order_are_worldscore_lists():
    assert aspects.STATIC_ASPECTS == (
        "camera_control", "object_control", "content_alignment", "3d_consistency",
        "photometric_consistency", "style_consistency", "subjective_quality")
    assert aspects.DYNAMIC_ASPECTS == ("motion_accuracy", "motion_magnitude",
                                       "motion_smoothness")
    assert [m.name for m in aspects.BY_NAME["subjective_quality"].metrics] == [
        "clip_iqa+", "clip_aesthetic"]


@pytest.mark.parametrize("name", sorted(VECTORS))
def test_spec_vectors(name):
    metric = _metric(name)
    for raw, want in zip(VECTORS[name], (0.0, 0.25, 0.75, 1.0)):
        # The spec prints raw rounded: n within half a unit of its last decimal.
        slope = 0.5 / (metric.norm.std * (metric.norm.z_max - metric.norm.z_min))
        tol = slope * 0.5 * 10 ** -len(repr(raw).split(".")[1])
        assert abs(normalize.normalize(metric, raw) - want) <= tol + 1e-12, (raw, want)
        exact = normalize.inverse_z(metric, want)
        assert normalize.normalize(metric, exact) == pytest.approx(want, abs=1e-12)
    below, above = normalize.inverse_z(metric, 0.0) - 1, normalize.inverse_z(metric, 1.0) + 1
    assert normalize.normalize(metric, below) == 0.0
    assert normalize.normalize(metric, above) == 1.0


def test_spec_consequences():
    assert normalize.normalize(_metric("optical_flow"), 0) == pytest.approx(0.2395, abs=1e-4)
    assert normalize.normalize(_metric("motion_accuracy"), 0) == pytest.approx(0.521, abs=1e-3)


def test_min_max_formula_and_clipping():
    rep = _metric("reprojection_error")
    assert normalize.normalize(rep, 0.0) == 1.0
    assert normalize.normalize(rep, 1.0719) == 0.0
    assert normalize.normalize(rep, 0.5) == 1 - (0.5 - 0) / (1.0719 - 0)
    assert normalize.normalize(rep, 5.0) == 0.0 and normalize.normalize(rep, -3.0) == 1.0
    obj = _metric("object_detection")
    assert normalize.normalize(obj, 0.75) == 0.75
    assert normalize.normalize(_metric("gram_matrix"), 0.0035) == pytest.approx(0.5)


def test_composites():
    cam = _metric("camera_error")
    want = np.prod([1 - 3 / 15, 1 - 0.1 / 0.5]) ** 0.5
    assert normalize.normalize(cam, [3.0, 0.1]) == want
    assert normalize.normalize(cam, [30.0, 0.1]) == 0.0  # one part clipped to 0 zeroes it
    ms = _metric("motion_smoothness")
    parts = [1 - 10 / 82.4014, (0.95 - 0.9224) / (1 - 0.9224), 1 - 0.01 / 0.0228]
    assert normalize.normalize(ms, [10.0, 0.95, 0.01]) == sum(parts) / 3
    for bad in (0.5, [1.0], [1.0, 2.0, 3.0], ["a", 1.0]):
        with pytest.raises(ValueError, match="camera_error: expected a list of 2"):
            normalize.normalize(cam, bad)
    with pytest.raises(ValueError, match="expected a number"):
        normalize.normalize(_metric("clip_score"), [1.0])
    with pytest.raises(ValueError, match="expected a number"):
        normalize.normalize(_metric("clip_score"), True)


def test_failure_fallback_normalises_to_zero():
    for metric in M.values():
        if metric.combine:
            with pytest.raises(normalize.FallbackCrash, match="crashes normalize_score"):
                normalize.failure_score(metric)
            continue
        score, normalized = normalize.failure_score(metric)
        assert score == (-100 if metric.norm.higher_is_better else 100), metric.name
        assert normalized == 0.0, metric.name


def test_nan_maps_as_pythons_min_max_order_makes_it():
    # max(lo, min(hi, nan)) is hi: a NaN raw score normalises like the range's top.
    assert normalize.normalize(_metric("clip_score"), float("nan")) == 1.0
    assert normalize.normalize(_metric("reprojection_error"), float("nan")) == 0.0
