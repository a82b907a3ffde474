"""The runner's preflight: metrics whose Python packages (or required CUDA) are missing
are reported unavailable with preflight's reason before anything is loaded.

Only the checks a run cannot repair are applied here. Checkpoints are left to the
loaders (they may download, and say how to fetch what they cannot find); the judge's
key and address to the VQA step (a --judge_base_url makes the profile's address moot).
A metric computed by a non-official backend (--flow_backend=dis,
--camera_backend=classical) does not need the official backend's packages.
"""

from typing import Dict, Sequence

from benchmarks.common import preflight
from benchmarks.common import runtime_profiles
from proto import preflight_pb2

BENCHMARK_ID = "memobench"
_ALTERNATIVES = {"MotionSmoothness": "--flow_backend=dis",
                 "CameraControllability": "--camera_backend=classical"}
_UNREPAIRABLE = (preflight_pb2.PreflightCheck.PYTHON_MODULE, preflight_pb2.PreflightCheck.CUDA)


def official_backend_metrics(metric_ids: Sequence[str], step1_settings) -> list:
    """The metrics of `metric_ids` that this run computes with the official backend."""
    non_official = set()
    if step1_settings.flow_backend != "raft":
        non_official.add("MotionSmoothness")
    if step1_settings.camera_backend != "mapanything":
        non_official.add("CameraControllability")
    return [m for m in metric_ids if m not in non_official]


def unready(metric_ids: Sequence[str], step1_settings) -> Dict[str, str]:
    """{metric_id: preflight's reason} for metrics missing a package (or CUDA)."""
    checked = official_backend_metrics(metric_ids, step1_settings)
    if not checked:
        return {}
    report = preflight.run_preflight(
        runtime_profiles.load_profile(BENCHMARK_ID), checked,
        preflight.Options(checkpoint_dir=step1_settings.checkpoint_dir,
                          kinds=frozenset(_UNREPAIRABLE)))
    reasons = {}
    for verdict in report.metrics:
        failed = [c.reason + (f" (fix: {c.fix})" if c.fix else "") for c in verdict.checks
                  if c.blocking and not c.ok and c.kind in _UNREPAIRABLE]
        if failed:
            alternative = _ALTERNATIVES.get(verdict.metric_id, "")
            reasons[verdict.metric_id] = "preflight: " + "; ".join(failed) + (
                f"; or pass {alternative} for a weight-free, non-official estimate"
                if alternative else "")
    return reasons
