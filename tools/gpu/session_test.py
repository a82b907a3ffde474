"""The GPU session's pure-Python parts: CUDA-skip detection, the extension list read from
the BUILD files, the carry plan and the timings JSON. (The session itself needs the device
machine: tools/gpu/README.md.)"""

import json
import pathlib

import pytest

from proto import scorecard_pb2
from proto import schema
from tools.gpu import bench
from tools.gpu import build_ext
from tools.gpu import carry
from tools.gpu import checks

ROOT = pathlib.Path(__file__).resolve().parents[2]

JUNIT = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">
<testcase classname="metrics.slam.cuda.cuda_test" name="test_lookup_matches_pytorch[cpu]"/>
<testcase classname="metrics.slam.cuda.cuda_test" name="test_lookup_matches_pytorch[cuda]">
  <skipped type="pytest.skip" message="needs a GPU: torch.cuda.is_available() is False"/>
</testcase>
<testcase classname="metrics.slam.droid_autocast_test" name="test_policy_on_a_real_gpu">
  <skipped type="pytest.skip" message="[cuda] needs a GPU"/>
</testcase>
<testcase classname="metrics.flow.sea_raft.autocast_test" name="test_policy[cuda-True-True]"/>
<testcase classname="metrics.slam.cuda.cuda_test" name="test_se3_ops_match_pytorch[cuda]"/>
<testcase classname="metrics.slam.cuda.cuda_test" name="test_module_refuses_without_cuda">
  <skipped type="pytest.skip" message="a GPU is present"/>
</testcase>
</testsuite></testsuites>"""


def _junit(tmp_path, text=JUNIT):
    path = tmp_path / "checks.xml"
    path.write_text(text)
    return checks.read(path)


@pytest.mark.parametrize("name,message,expected", [
    ("test_lookup_matches_pytorch[cuda]", "", True),
    ("test_x[cuda:0]", "", True),
    ("test_policy[cuda-True-float16]", "", False),  # a policy case: runs anywhere
    ("test_policy[cpu-False-float32]", "", False),
    ("test_policy_on_a_real_gpu", "[cuda] needs a GPU", True),
    ("test_module_refuses_without_cuda", "a GPU is present", False),
    ("test_cudagraph[cpu]", "", False),
])
def test_cuda_cases_are_recognised(name, message, expected):
    assert checks.is_cuda_case(name, message) is expected


def test_skipped_cuda_cases_fail_the_check(tmp_path):
    summary = checks.summarize(_junit(tmp_path))
    assert summary["counts"] == {"passed": 3, "skipped": 3}
    assert len(summary["cuda_skipped"]) == 2
    assert summary["other_skipped"] == []  # "a GPU is present" is a CPU-only case's skip
    assert summary["cuda_ran"] == ["metrics.slam.cuda.cuda_test::"
                                   "test_se3_ops_match_pytorch[cuda]"]
    reasons = checks.verdict(summary, allow_cuda_skips=False)
    assert len(reasons) == 2 and all(r.startswith("CUDA case skipped") for r in reasons)
    assert checks.verdict(summary, allow_cuda_skips=True) == []


def test_a_skipped_cpu_case_fails_the_check_on_the_gpu(tmp_path):
    text = JUNIT.replace('name="test_lookup_matches_pytorch[cpu]"/>',
                         'name="test_lookup_matches_pytorch[cpu]"><skipped message='
                         '"extension not built: nvcc not found"/></testcase>')
    summary = checks.summarize(_junit(tmp_path, text))
    assert summary["other_skipped"] == ["metrics.slam.cuda.cuda_test::test_lookup_matches_"
                                        "pytorch[cpu] (extension not built: nvcc not found)"]
    assert "skipped: metrics.slam.cuda.cuda_test::test_lookup" in "".join(
        checks.verdict(summary, allow_cuda_skips=False))


def test_failures_and_no_cuda_case_fail_the_check(tmp_path):
    text = JUNIT.replace('name="test_policy[cuda-True-True]"/>',
                         'name="test_policy[cuda-True-True]"><failure message="boom"/>'
                         '</testcase>')
    summary = checks.summarize(_junit(tmp_path, text))
    assert summary["failed"] == ["metrics.flow.sea_raft.autocast_test::"
                                 "test_policy[cuda-True-True]: boom"]
    assert "failed: " in checks.verdict(summary, allow_cuda_skips=True)[0]
    cpu_only = JUNIT.replace('<testcase classname="metrics.slam.cuda.cuda_test" '
                             'name="test_se3_ops_match_pytorch[cuda]"/>', "")
    cpu_only = cpu_only.split('<testcase classname="metrics.slam.cuda.cuda_test" '
                              'name="test_lookup_matches_pytorch[cuda]">')[0]
    cpu_only += "</testsuite></testsuites>"
    assert checks.verdict(checks.summarize(_junit(tmp_path, cpu_only)), False) == [
        "no CUDA case ran at all"]


def test_a_build_file_call_is_read_with_its_package(tmp_path):
    pkg = tmp_path / "metrics" / "x" / "cuda"
    pkg.mkdir(parents=True)
    (pkg / "BUILD.bazel").write_text(
        'load("//tools/cuda:defs.bzl", "torch_cuda_extension")\n'
        'torch_cuda_extension(\n    name = "x_so",\n    cc_srcs = ["m.cc"],\n'
        '    cu_srcs = ["a.cu", "b.cu"],\n    module_name = "_x",\n)\n'
        'py_library(name = "other", srcs = ["o.py"])\n')
    assert build_ext.extensions(tmp_path) == [{
        "name": "x_so", "cc_srcs": ["m.cc"], "cu_srcs": ["a.cu", "b.cu"],
        "module_name": "_x", "package": "metrics/x/cuda"}]


def test_the_extensions_are_read_from_the_build_files():
    found = build_ext.extensions(ROOT)
    slam = [e for e in found if e["package"] == "metrics/slam/cuda"]
    assert len(slam) == 1
    assert slam[0]["module_name"] == "_slam_cuda"
    assert sorted(slam[0]["cu_srcs"]) == ["ba_kernels.cu", "corr_kernels.cu", "se3_kernels.cu"]
    assert slam[0]["cc_srcs"] == ["module.cc"]
    assert all((ROOT / e["package"] / s).is_file()
               for e in found for s in e["cu_srcs"] + e["cc_srcs"] + e.get("hdrs", []))
    assert "-gencode=arch=compute_90,code=sm_90" in build_ext.gencode(ROOT)


def _fake_install(external, name, deps=()):
    site = external / f"pypi__{name}" / "site" / name
    site.mkdir(parents=True)
    (site / "__init__.py").write_text("")
    (external / f"pypi__{name}" / "BUILD.bazel").write_text(
        "deps = [" + ", ".join(f'"@pypi__{d}//:pkg"' for d in deps) + "]\n")
    (external / f"pypi__{name}" / "requirement.txt").write_text(f"{name}==1.0 --hash=x\n")


def test_the_plan_carries_what_the_device_lacks_and_its_missing_deps(tmp_path):
    for name, deps in [("ftfy", ["wcwidth"]), ("wcwidth", []), ("torch", ["sympy"]),
                       ("sympy", []), ("ray", ["msgpack_only_ray_needs"]),
                       ("protobuf", []), ("opencv_python", ["numpy"]), ("numpy", [])]:
        _fake_install(tmp_path, name, deps)
    planned = carry.plan(["ftfy", "torch", "ray", "protobuf", "opencv-python"], tmp_path)
    assert sorted(planned) == ["ftfy", "protobuf", "wcwidth"]
    assert planned["protobuf"] == carry.FORCED["protobuf"]


def test_copy_refuses_interpreter_specific_binaries(tmp_path):
    _fake_install(tmp_path, "pure")
    _fake_install(tmp_path, "native")
    (tmp_path / "pypi__native" / "site" / "native" / "_x.cpython-311-x86_64-linux-gnu.so"
     ).write_bytes(b"")
    (tmp_path / "pypi__pure" / "site" / "pure" / "_y.abi3.so").write_bytes(b"")
    site = tmp_path / "out"
    site.mkdir()
    assert carry.copy_site("pure", tmp_path, site) == []
    assert (site / "pure" / "_y.abi3.so").is_file()
    assert carry.copy_site("native", tmp_path, site) == [
        "native/_x.cpython-311-x86_64-linux-gnu.so"]
    assert not (site / "native").exists()


def test_timings_json_holds_the_scorecard_costs(tmp_path):
    card = scorecard_pb2.Scorecard()
    m = card.metrics.add(id="dynamic_degree", seconds=2.5, available=True, value=0.25,
                         sample_count=3)
    m.peak_host_bytes, m.peak_device_bytes = 3 * 2**30, 2**30
    card.metrics.add(id="imaging_quality", available=False, unavailable_reason="no weights")
    (tmp_path / "scorecard.json").write_text(schema.to_json(card))
    costs = bench.metric_costs(tmp_path / "scorecard.json")
    assert costs["dynamic_degree"] == {
        "seconds": 2.5, "peak_host_bytes": 3 * 2**30, "peak_device_bytes": 2**30,
        "available": True, "value": 0.25, "sample_count": 3, "unavailable_reason": ""}
    assert costs["imaging_quality"]["value"] is None
    out = tmp_path / "timings.json"
    bench.merge(out, "vbench", {"metrics": costs}, {"nproc": 16})
    bench.merge(out, "physics_iq", {"error": "x"}, {"torch": "2.11"})
    bench.merge(out, "context", {"cuda_device": "H100"}, {})
    data = json.loads(out.read_text())
    assert data["context"] == {"nproc": 16, "torch": "2.11", "cuda_device": "H100"}
    assert data["vbench"]["metrics"]["dynamic_degree"]["peak_device_bytes"] == 2**30
    assert data["physics_iq"] == {"error": "x"}


def test_a_failing_child_is_recorded_not_raised(tmp_path):
    result = bench.timed(["sh", "-c", "echo hello; exit 3"], tmp_path / "log")
    assert result["exit_code"] == 3
    assert "hello" in (tmp_path / "log").read_text()
    entry = bench._with_card({"run": result}, tmp_path)  # pylint: disable=protected-access
    assert entry["error"].startswith("the runner failed (exit 3")


def test_the_bundled_ffmpeg_is_left_out(tmp_path):
    _fake_install(tmp_path, "imageio_ffmpeg")
    binaries = tmp_path / "pypi__imageio_ffmpeg" / "site" / "imageio_ffmpeg" / "binaries"
    binaries.mkdir()
    (binaries / "ffmpeg-linux-x86_64-v9.0.2").write_bytes(b"\0" * 16)
    (binaries / "__init__.py").write_text("")
    site = tmp_path / "out"
    site.mkdir()
    assert carry.copy_site("imageio_ffmpeg", tmp_path, site) == []
    assert sorted(p.name for p in (site / "imageio_ffmpeg" / "binaries").iterdir()) == [
        "__init__.py"]
