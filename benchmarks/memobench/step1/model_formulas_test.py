"""Tests for benchmarks.memobench.step1.model_formulas: the phases run_eval.py gives the
model metrics, and how their values combine (numbers pinned as before the move)."""

import pytest

from benchmarks.memobench.step1 import model_formulas
from metrics.depth import depth_consistency
from metrics.dinov2 import identity


@pytest.mark.parametrize("r,num_frames,expected", [
    (10, 30, [10, 12, 14, 17, 19, 21, 24, 26, 29]),
    (0, 9, [0, 1, 2, 3, 4, 5, 6, 7, 8]),
    (5, 7, [5, 5, 5, 5, 5, 5, 5, 5, 6]),
    (29, 30, [29]),  # n_range == 1
    (40, 30, [29]),  # r clamped to N-1
    (0, 1, [0]),
])
def test_obj_identity_indices(r, num_frames, expected):
    assert model_formulas.obj_identity_indices(r, num_frames) == expected


def test_obj_identity_indices_rejects_empty_clip():
    with pytest.raises(ValueError):
        model_formulas.obj_identity_indices(0, 0)




def test_obj_identity_is_the_r_phase_against_frame_0(monkeypatch):
    seen = []

    def fake(frames, start, end, model, device, anchor_index):
        seen.append((len(frames), start, end, model, device, anchor_index))
        return identity.IdentityResult(0.756749, 0.50005, (start,), (0.756749,), (0.50005,))

    monkeypatch.setattr(identity, "identity_details", fake)
    assert model_formulas.obj_identity([None] * 20, 11, "model", "cpu") == (0.7567, 0.5)
    assert seen == [(20, 11, 19, "model", "cpu", 0)]


def test_geo_consistency_rounds_each_call_then_combines_v_and_r(monkeypatch):
    seen = []
    v_sims, r_sims = (0.81234, 0.78766), (0.61236, 0.30004)

    def fake(frames, spans, model, processor, device):
        seen.append((len(frames), tuple(spans), model, processor, device))
        v = depth_consistency.SpanDepthConsistency("V", 0, 6, (0, 3, 6), v_sims, None, None)
        r = depth_consistency.SpanDepthConsistency("R", 10, 15, (10, 12, 15), r_sims, None,
                                                   None)
        return depth_consistency.DepthConsistencyResult(None, None, (v, r))

    monkeypatch.setattr(depth_consistency, "depth_consistency_details", fake)
    got = model_formulas.geo_consistency([None] * 16, 6, 10, "m", "p", "cpu")
    assert got == (round((0.8 + 0.4562) / 2, 4), 0.3) == (0.6281, 0.3)
    assert seen == [(16, (("V", 0, 6), ("R", 10, 15)), "m", "p", "cpu")]


def test_a_span_without_a_pair_scores_zero_and_still_combines():
    # geometry_3d_consistency returns (0.0, 0.0) when n_range <= 1; run_eval averages it in.
    assert model_formulas.geo_span_value(()) == (0.0, 0.0)
    assert model_formulas.combine_geo_spans(
        [(0.9, 0.8), model_formulas.geo_span_value(())]) == (0.45, 0.0)


def test_each_call_is_rounded_before_the_phases_combine():
    v, r = model_formulas.geo_span_value((0.00016,)), model_formulas.geo_span_value((0.00013,))
    assert (v, r) == ((0.0002, 0.0002), (0.0001, 0.0001))
    assert model_formulas.combine_geo_spans([v, r]) == (0.0002, 0.0001)
    assert round((0.00016 + 0.00013) / 2, 4) == 0.0001  # what rounding only once would give
    with pytest.raises(ValueError):
        model_formulas.combine_geo_spans([])


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
