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
        return identity.IdentityResult(0.75, 0.5, (start,), (0.75,), (0.5,))

    monkeypatch.setattr(identity, "identity_details", fake)
    assert model_formulas.obj_identity([None] * 20, 11, "model", "cpu") == (0.75, 0.5)
    assert seen == [(20, 11, 19, "model", "cpu", 0)]


def test_geo_consistency_combines_v_and_r(monkeypatch):
    seen = []

    def fake(frames, spans, model, processor, device):
        seen.append((len(frames), tuple(spans), model, processor, device))
        v = depth_consistency.SpanDepthConsistency("V", 0, 6, (), (), 0.8, 0.7)
        r = depth_consistency.SpanDepthConsistency("R", 10, 15, (), (), 0.61, 0.3)
        mean, minimum = depth_consistency.combine_spans((v.mean, v.min), (r.mean, r.min))
        return depth_consistency.DepthConsistencyResult(mean, minimum, (v, r))

    monkeypatch.setattr(depth_consistency, "depth_consistency_details", fake)
    got = model_formulas.geo_consistency([None] * 16, 6, 10, "m", "p", "cpu")
    assert got == (round((0.8 + 0.61) / 2, 4), 0.3)
    assert seen == [(16, (("V", 0, 6), ("R", 10, 15)), "m", "p", "cpu")]
