"""worldscore.json and the headlines from a run's rows: as aggregate.py computes them, and
only when every aspect is complete (no 0 standing for a metric not computed)."""

from benchmarks.worldscore import aggregate
from benchmarks.worldscore import aspects
from benchmarks.worldscore import card
from benchmarks.worldscore import metric_specs
from benchmarks.worldscore import normalize
from proto import scorecard_pb2

RAW = {"camera_error": [3.0, 0.1], "object_detection": 0.5, "clip_score": 26.0,
       "reprojection_error": 0.4, "optical_flow_aepe": 0.3, "gram_matrix": 0.002,
       "clip_iqa+": 0.6, "clip_aesthetic": 5.0, "motion_accuracy": 1.0, "optical_flow": 4.0,
       "motion_smoothness": [10.0, 0.95, 0.01]}


def _row(movement, i, scale):
    sample = scorecard_pb2.SampleScore(sample_id=f"{movement}/x/{i}", split=movement)
    for a in aspects.ASPECTS_OF[movement]:
        for m in aspects.BY_NAME[a].metrics:
            raw = RAW[m.name]
            raw = [v * scale for v in raw] if isinstance(raw, list) else raw * scale
            sample.metrics[metric_specs.metric_id(a, m.name)] = normalize.normalize(m, raw)
            for rid, v in zip(metric_specs.raw_ids(m), raw if isinstance(raw, list) else [raw]):
                sample.metrics[rid] = v
    return sample


def _available(ids):
    return [scorecard_pb2.MetricResult(id=i, available=True, sample_count=2) for i in ids]


def test_complete_run_gives_the_official_aggregation():
    samples = [_row(mv, i, s) for mv in aspects.VISUAL_MOVEMENTS for i, s in ((0, 1.0), (1, 0.7))]
    pooled = card.pools(samples, aspects.VISUAL_MOVEMENTS)
    per_metric = _available([metric_specs.metric_id(m.aspect, m.name)
                             for a in aspects.ASPECTS for m in a.metrics])
    by_aspect = card.aspect_results(per_metric, pooled, aspects.VISUAL_MOVEMENTS)
    scores = card.worldscore_dict(by_aspect, aspects.VISUAL_MOVEMENTS)
    assert scores == aggregate.worldscore(pooled)
    heads = card.headline_results(by_aspect, aspects.VISUAL_MOVEMENTS, scores)
    assert [h.value for h in heads] == [scores[aspects.HEADLINE_STATIC],
                                        scores[aspects.HEADLINE_DYNAMIC]]


def test_a_missing_metric_withholds_its_aspect_the_headlines_and_worldscore_json():
    samples = [_row("static", 0, 1.0)]
    pooled = card.pools(samples, ("static",))
    ids = [metric_specs.metric_id(m.aspect, m.name) for a in aspects.ASPECTS for m in a.metrics]
    per_metric = _available(ids)
    per_metric[0].available = False  # camera_control.camera_error
    by_aspect = card.aspect_results(per_metric, pooled, ("static",))
    assert not by_aspect["camera_control"].available
    assert "camera_control.camera_error" in by_aspect["camera_control"].unavailable_reason
    assert by_aspect["style_consistency"].available
    assert card.worldscore_dict(by_aspect, ("static",)) is None
    heads = card.headline_results(by_aspect, ("static",), None)
    assert not any(h.available for h in heads)


def test_a_3d_model_static_only_gets_the_official_dynamic_headline():
    samples = [_row("static", 0, 1.0)]
    pooled = card.pools(samples, ("static",))
    per_metric = _available([metric_specs.metric_id(m.aspect, m.name)
                             for a in aspects.ASPECTS for m in a.metrics])
    by_aspect = card.aspect_results(per_metric, pooled, ("static",))
    scores = card.worldscore_dict(by_aspect, ("static",))
    assert scores == aggregate.worldscore(pooled)  # the dynamic aspects 0
    static, dynamic = card.headline_results(by_aspect, ("static",), scores, threed=True)
    assert dynamic.available and dynamic.value == scores[aspects.HEADLINE_DYNAMIC]
    assert abs(dynamic.value - 0.7 * static.value) <= 0.011  # 7 of 10 aspects, rounded
    _, not_3d = card.headline_results(by_aspect, ("static",), scores, threed=False)
    assert not not_3d.available
