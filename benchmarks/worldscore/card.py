"""A WorldScore run's scorecard results: per-metric means, aspects, headlines, blockers.

Per metric: the mean of score_normalized over the instances of its movement that have
it (card_lib.aggregate). Aspects and headlines are computed as worldscore.json's
(aggregate.py), and only when complete: an aspect needs every one of its metrics, a
headline every aspect it averages (Static: 7, Dynamic: all 10). worldscore.json is
written only when every aspect of the movements evaluated is complete; otherwise the
scorecard says which are missing (never a 0 standing for a metric not computed).
"""

from typing import Dict, List, Optional, Sequence

from benchmarks.common import gate
from benchmarks.common import scorecard as card_lib
from benchmarks.common import trust
from benchmarks.worldscore import aggregate
from benchmarks.worldscore import aspects
from benchmarks.worldscore import metric_specs
from benchmarks.worldscore import sample as sample_lib
from proto import scorecard_pb2


def pools(samples, movements) -> Dict[str, aggregate.Pools]:
    return {mv: aggregate.pool({k: v[1] for k, v in sample_lib.entries_of(s).items()}
                               for s in samples if s.split == mv and not s.error)
            for mv in movements}


def metric_results(samples, prepared, metric_ids) -> List[scorecard_pb2.MetricResult]:
    out = []
    for a in aspects.ASPECTS:
        for m in a.metrics:
            mid = metric_specs.metric_id(a.name, m.name)
            spec = metric_specs.BY_ID[mid]
            backend = prepared.backend_of(mid) or scorecard_pb2.Backend()
            if mid not in metric_ids:
                out.append(card_lib.unavailable(spec, "not selected (--metrics)", backend))
            elif mid in prepared.unavailable:
                out.append(card_lib.unavailable(spec, prepared.unavailable[mid][0], backend))
            else:
                fam = prepared.family_of(mid)
                refs = fam.checkpoints_for(mid) if fam else ()
                result = card_lib.aggregate(
                    spec, [s for s in samples if s.split == a.movement],
                    trust.with_digests(backend, refs))
                out.append(result)
    return out


def _missing_metrics(aspect: aspects.Aspect, by_id) -> List[str]:
    return [metric_specs.metric_id(aspect.name, m.name) for m in aspect.metrics
            if not by_id[metric_specs.metric_id(aspect.name, m.name)].available]


def aspect_results(per_metric, pooled, movements) -> Dict[str, scorecard_pb2.MetricResult]:
    by_id = {r.id: r for r in per_metric}
    out = {}
    for a in aspects.ASPECTS:
        spec = metric_specs.BY_ID[a.name]
        missing = _missing_metrics(a, by_id)
        if a.movement not in movements:
            out[a.name] = card_lib.unavailable(spec, f"{a.movement} not evaluated "
                                               "(--visual_movement)")
        elif missing:
            out[a.name] = card_lib.unavailable(spec, "needs " + ", ".join(missing))
        else:
            value = aggregate.aspect_scores(pooled[a.movement], a.movement)[a.name]
            first = by_id[metric_specs.metric_id(a.name, a.metrics[0].name)]
            result = card_lib.unavailable(spec, "", first.backend)
            result.available, result.value = True, value
            result.sample_count = max(by_id[metric_specs.metric_id(a.name, m.name)].sample_count
                                      for m in a.metrics)
            out[a.name] = result
    return out


def worldscore_dict(aspect_by_name, movements) -> Optional[dict]:
    """worldscore.json's dict when every aspect of the evaluated movements is complete."""
    wanted = [a for a in aspects.ASPECTS if a.movement in movements]
    if not all(aspect_by_name[a.name].available for a in wanted):
        return None
    scores = {a: 0 for a in aspects.STATIC_ASPECTS + aspects.DYNAMIC_ASPECTS}
    scores.update({a.name: aspect_by_name[a.name].value for a in wanted})
    static, dynamic = aggregate.headlines(scores)
    scores[aspects.HEADLINE_STATIC], scores[aspects.HEADLINE_DYNAMIC] = static, dynamic
    return scores


def headline_results(aspect_by_name, movements, scores,
                     threed: bool = False) -> List[scorecard_pb2.MetricResult]:
    """Static and Dynamic; for a 3D model (static only, as the official protocol runs it)
    Dynamic counts the dynamic aspects as the official 0."""
    out = []
    for name, needed in ((aspects.HEADLINE_STATIC, aspects.STATIC_ASPECTS),
                         (aspects.HEADLINE_DYNAMIC, aspects.STATIC_ASPECTS
                          + aspects.DYNAMIC_ASPECTS)):
        spec = metric_specs.BY_ID[name]
        lacking = [a for a in needed if not aspect_by_name[a].available
                   and not (threed and a in aspects.DYNAMIC_ASPECTS)]
        if name == aspects.HEADLINE_DYNAMIC and aspects.DYNAMIC not in movements and not threed:
            lacking = lacking or ["dynamic not evaluated"]
        if lacking or scores is None:
            out.append(card_lib.unavailable(spec, "needs every aspect it averages; missing: "
                                            + ", ".join(lacking)))
            continue
        result = card_lib.unavailable(spec, "")
        result.available, result.value = True, scores[name]
        out.append(result)
    return out


def facts(config, metrics, items) -> gate.Facts:
    """The gate's facts: each movement's dataset file has its official entry count
    (`items`: all shards'); the per-metric results of the evaluated movements count (the
    aspects and headlines are formulas over them); a visual movement left out is
    incomplete coverage (a 3D model's dynamic one excepted, as the official protocol)."""
    not_official = []
    if config.bundled_sample:
        not_official.append("the bundled synthetic sample, not the WorldScore dataset")
    if config.staged:
        not_official.append("a staged bounded run, NOT a benchmark result: " + config.staged)
    counts = expected_counts(items)
    threed = config.model_name in aspects.THREED_MODELS
    evaluated = [m.id for m in metrics if m.id in metric_specs.TABLE.by_id and "." in m.id
                 and aspects.BY_NAME[m.id.split(".")[0]].movement in config.movements]
    return gate.Facts(
        not_official_data=not_official,
        counts=[gate.Count(f"the dataset's {mv}.json", counts.get(mv, 0),
                           aspects.EXPECTED_INSTANCES[mv], "entries")
                for mv in config.movements],
        required=evaluated, trusted=evaluated,
        coverage=[card_lib.blocker(scorecard_pb2.INCOMPLETE_COVERAGE,
                                   f"{mv} not evaluated (--visual_movement)")
                  for mv in aspects.VISUAL_MOVEMENTS
                  if mv not in config.movements and not (threed and mv == aspects.DYNAMIC)])


def expected_counts(items: Sequence) -> Dict[str, int]:
    counts: Dict[str, int] = {}
    for item in items:
        if item.entry is not None:
            counts[item.movement] = counts.get(item.movement, 0) + 1
    return counts
