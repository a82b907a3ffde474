"""Which WorldScore metrics this version computes, with which family, and why not the rest.

A builder takes the run's config and returns a Family (or raises
resolver.CheckpointUnavailable, whose message carries the fetch command). The flow
metrics take a `flow(frame_a, frame_b) -> (H, W, 2)` callable (flow_metrics.py): SEA-RAFT
from its checkpoint unless the config gives another; camera_error and reprojection_error
share one DROID-SLAM family (droid_metrics.py). A metric no family computes is
unavailable with the reason.
"""

import importlib
from typing import Dict, List

from benchmarks.common import family as family_lib
from benchmarks.common.errors import InputError
from benchmarks.worldscore import aspects
from benchmarks.worldscore import metric_specs
from metrics.checkpoints import resolver

_ID = metric_specs.metric_id
_SEA_RAFT = "SEA-RAFT optical flow (spring-M, spec §4.5; metrics/flow/sea_raft)"
NOT_IN_THIS_VERSION: Dict[str, str] = {}
# One DROID-SLAM run per instance feeds both (droid_metrics.py): one family for the two.
DROID_METRICS = (_ID("camera_control", "camera_error"), _ID("3d_consistency", "reprojection_error"))
FLOW_METRICS = (_ID("photometric_consistency", "optical_flow_aepe"),
                _ID("motion_magnitude", "optical_flow"))
MOTION_ACCURACY = _ID("motion_accuracy", "motion_accuracy")
PER_INSTANCE_IDS = tuple(_ID(m.aspect, m.name) for a in aspects.ASPECTS for m in a.metrics)
_SHORT = {m.name: _ID(m.aspect, m.name) for a in aspects.ASPECTS for m in a.metrics}


def select(requested) -> List[str]:
    """--metrics: metric names (gram_matrix), aspects (subjective_quality) or ids
    (style_consistency.gram_matrix); all when none. InputError for unknown ones."""
    if not requested:
        return list(PER_INSTANCE_IDS)
    chosen = set()
    for name in requested:
        if name in aspects.BY_NAME:
            chosen.update(_ID(name, m.name) for m in aspects.BY_NAME[name].metrics)
        elif name in _SHORT or name in PER_INSTANCE_IDS:
            chosen.add(_SHORT.get(name, name))
        else:
            raise InputError("--metrics", "WorldScore metrics (" + ", ".join(_SHORT)
                             + "), aspects (" + ", ".join(aspects.BY_NAME) + ") or ids",
                             repr(name))
    return [m for m in PER_INSTANCE_IDS if m in chosen]


def _builders():
    # pylint: disable=import-outside-toplevel  (torch only when a model family is built)
    from benchmarks.worldscore import content_alignment
    from benchmarks.worldscore import motion_accuracy
    from benchmarks.worldscore import motion_smoothness
    from benchmarks.worldscore import object_control
    from benchmarks.worldscore import style_consistency
    from benchmarks.worldscore import subjective_quality
    return ((style_consistency.METRIC_IDS, style_consistency.build),
            (subjective_quality.METRIC_IDS, subjective_quality.build),
            (content_alignment.METRIC_IDS, content_alignment.build),
            (motion_smoothness.METRIC_IDS, motion_smoothness.build),
            (motion_accuracy.METRIC_IDS, motion_accuracy.build),
            (object_control.METRIC_IDS, object_control.build))


def prepare(config, metric_ids) -> family_lib.Prepared:
    """The families of the selected metrics and why each other selected one is not."""
    families, unavailable = [], {}
    for ids, build in _builders():
        for m in [m for m in ids if m in metric_ids]:  # one family per metric: each
            try:                                       # metric's own checkpoints and reason
                families.append(build(config, [m]))
            except (resolver.CheckpointUnavailable, ValueError, OSError) as e:
                unavailable[m] = (str(e), None)
    for group, module in ((FLOW_METRICS, "flow_metrics"), (DROID_METRICS, "droid_metrics")):
        wanted = [m for m in group if m in metric_ids]
        if not wanted:
            continue
        try:  # imported only when wanted (torch, cvxpy)
            build = importlib.import_module("benchmarks.worldscore." + module).build
            families.append(build(config, wanted))
        except (resolver.CheckpointUnavailable, ValueError, OSError) as e:
            unavailable.update({m: (str(e), None) for m in wanted})
    built = {m for f in families for m in f.metric_ids}
    for m in metric_ids:
        if m not in built and m not in unavailable:
            unavailable[m] = (NOT_IN_THIS_VERSION.get(m, "no family computes it"), None)
    return family_lib.Prepared(families, unavailable)

