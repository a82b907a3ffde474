"""Independent expected values for //tests:worldscore_all_aspects_test (testonly).

Every WorldScore metric of one instance, computed by its own module on the frames the
run decoded for that instance (`InstanceContext`s recorded as the run made them), with
models loaded by that module from the same tiny checkpoints, without the runner, the
sample loop, instance_eval or the official-file writers: the two SEA-RAFT metrics by
flow_metrics.aepe_score / magnitude_score, each other one by its aspect module's family
(`<module>.build(config, [id]).compute(ctx)`; DROID-SLAM's pair by droid_metrics). A
stored raw value that differs from these was wired to the wrong metric, instance or
component.
"""

import dataclasses
import importlib
from typing import Dict, List, Mapping

from benchmarks.worldscore import aspects
from benchmarks.worldscore import droid_metrics
from benchmarks.worldscore import flow_metrics
from benchmarks.worldscore import metric_specs

# The aspect modules that compute one metric each (families.WIRINGS, per_metric).
PER_METRIC_MODULES = ("style_consistency", "subjective_quality", "content_alignment",
                      "motion_smoothness", "motion_accuracy", "object_control")


def raw_values(outcome) -> List[float]:
    """A family's outcome as the raw components the sample row stores (sample._record)."""
    return [float(v) for v in (outcome if isinstance(outcome, (list, tuple)) else [outcome])]


def stored_raw(metrics: Mapping[str, float]) -> Dict[str, List[float]]:
    """{metric id: raw components} of one per_sample_scores.jsonl row's metrics."""
    out = {}
    for (aspect, name), metric in aspects.METRICS.items():
        ids = metric_specs.raw_ids(metric)
        if all(i in metrics for i in ids):
            out[metric_specs.metric_id(aspect, name)] = [metrics[i] for i in ids]
    return out


def expected_raw(config, ctx) -> Dict[str, List[float]]:
    """{metric id: raw components} of one instance, from each metric's own module; an
    outcome that is an exception (the official fallback applies) is left out."""
    ctx = dataclasses.replace(ctx, shared={})  # nothing a batched stage computed
    frames = [ctx.rgb(i) for i in range(len(ctx.frame_files))]
    outcomes = {}
    flow, _ = flow_metrics.load_sea_raft_flow(config, flow_metrics.AEPE)
    if ctx.movement == aspects.STATIC:
        outcomes[flow_metrics.AEPE] = flow_metrics.aepe_score(frames, flow)
    else:
        outcomes[flow_metrics.MAGNITUDE] = flow_metrics.magnitude_score(frames, flow)
    for name in PER_METRIC_MODULES:
        module = importlib.import_module("benchmarks.worldscore." + name)
        for metric_id in module.METRIC_IDS:
            if _applies(metric_id, ctx.movement):
                outcomes.update(module.build(config, [metric_id]).compute(ctx).columns)
    outcomes.update(droid_metrics.build(config, droid_metrics.METRIC_IDS).compute(ctx).columns)
    return {m: raw_values(v) for m, v in outcomes.items() if not isinstance(v, BaseException)}


def _applies(metric_id: str, movement: str) -> bool:
    return metric_id.split(".")[0] in aspects.ASPECTS_OF[movement]
