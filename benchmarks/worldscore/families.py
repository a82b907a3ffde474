"""Which WorldScore metrics this version computes, with which family, and why not the rest.

Each family is a `family.Wiring` (benchmarks/common/family.py) whose build takes the
run's config and returns a Family (or raises resolver.CheckpointUnavailable, whose message
carries the fetch command). The flow
metrics take a `flow(frame_a, frame_b) -> (H, W, 2)` callable (flow_metrics.py): SEA-RAFT
from its checkpoint unless the config gives another; camera_error and reprojection_error
share one DROID-SLAM family (droid_metrics.py). A metric no family computes is
unavailable with the reason.
"""

from typing import Dict

from benchmarks.common import family as family_lib
from benchmarks.worldscore import metric_specs

_ID = metric_specs.metric_id
_SEA_RAFT = "SEA-RAFT optical flow (spring-M, spec §4.5; metrics/flow/sea_raft)"
NOT_IN_THIS_VERSION: Dict[str, str] = {}
# One DROID-SLAM run per instance feeds both (droid_metrics.py): one family for the two.
DROID_METRICS = (_ID("camera_control", "camera_error"), _ID("3d_consistency", "reprojection_error"))
FLOW_METRICS = (_ID("photometric_consistency", "optical_flow_aepe"),
                _ID("motion_magnitude", "optical_flow"))
MOTION_ACCURACY = _ID("motion_accuracy", "motion_accuracy")
PER_INSTANCE_IDS = metric_specs.PER_INSTANCE_IDS


def _aspect_ids(aspect: str):
    return tuple(m for m in metric_specs.TABLE.of_family(aspect) if m in PER_INSTANCE_IDS)


def _module(name: str) -> str:
    return "benchmarks.worldscore." + name  # imported when wanted (torch, cvxpy)


# One family per metric for the aspect modules (each metric its own checkpoints and
# reason), one shared family for each of the flow and DROID-SLAM pairs.
WIRINGS = tuple(
    family_lib.Wiring(aspect, _aspect_ids(aspect), family_lib.lazy(_module(aspect)),
                      per_metric=True)
    for aspect in ("style_consistency", "subjective_quality", "content_alignment",
                   "motion_smoothness", "motion_accuracy", "object_control")
) + (family_lib.Wiring("optical_flow", FLOW_METRICS, family_lib.lazy(_module("flow_metrics"))),
     family_lib.Wiring("droid_slam", DROID_METRICS, family_lib.lazy(_module("droid_metrics"))))


def prepare(config, metric_ids) -> family_lib.Prepared:
    """The families of the selected metrics and why each other selected one is not."""
    return family_lib.prepare(WIRINGS, config, metric_ids, NOT_IN_THIS_VERSION)
