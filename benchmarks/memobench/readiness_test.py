"""The runner's preflight: missing packages make metrics unavailable, the rest is left
to the loaders, and non-official backends do not need the official packages."""

from benchmarks.common import runtime_profiles
from benchmarks.memobench import readiness
from benchmarks.memobench.step1.prepare import Step1Settings
from proto import runtime_profile_pb2


def _profile():
    profile = runtime_profile_pb2.RuntimeProfile(benchmark_id="memobench")
    for metric_id, module in (("MotionSmoothness", "no_such_module_for_worldeval_test"),
                              ("GT_ALL_PSNR", "json")):
        req = profile.metrics.add(metric_id=metric_id, device=runtime_profile_pb2.CPU_OK)
        req.python_modules.append(module)
        # A checkpoint and a service that would fail: the runner's preflight skips both.
        req.checkpoints.add(name="absent", id="org/absent", revision="main", file="w.bin")
        req.services.add(name="judge", address="http://192.0.2.1:9")
    return profile


def test_missing_package_is_the_reason(monkeypatch):
    monkeypatch.setattr(runtime_profiles, "load_profile", lambda _: _profile())
    reasons = readiness.unready(["MotionSmoothness", "GT_ALL_PSNR"], Step1Settings())
    assert list(reasons) == ["MotionSmoothness"]
    assert reasons["MotionSmoothness"].startswith("preflight: ")
    assert "no_such_module_for_worldeval_test" in reasons["MotionSmoothness"]
    assert reasons["MotionSmoothness"].endswith(
        "or pass --flow_backend=dis for a weight-free, non-official estimate")


def test_non_official_backend_needs_no_official_package(monkeypatch):
    monkeypatch.setattr(runtime_profiles, "load_profile", lambda _: _profile())
    assert readiness.unready(["MotionSmoothness", "GT_ALL_PSNR"],
                             Step1Settings(flow_backend="dis")) == {}
    assert readiness.official_backend_metrics(
        ["MotionSmoothness", "CameraControllability", "ORS"],
        Step1Settings(flow_backend="dis", camera_backend="classical")) == ["ORS"]
