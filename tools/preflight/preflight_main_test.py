"""//tools/preflight:preflight as a user runs it: verdicts, report, exit codes."""

import json

from metrics.testing import binary_runner

PREFLIGHT = binary_runner.Binary("tools/preflight", "preflight")

_PROFILE = """
schema_version: "worldeval.v1.RuntimeProfile/1"
benchmark_id: "memobench"
environment: UNIFIED
metrics { metric_id: "Plain" python_modules: "json" device: CPU_OK }
metrics { metric_id: "Exotic" python_modules: "no_such_module_for_preflight" device: CPU_OK }
metrics { metric_id: "Later" pending: "needs a model worldeval lacks" device: CPU_OK }
"""


def _profile(tmp_path, text=_PROFILE):
    path = tmp_path / "profile.textproto"
    path.write_text(text)
    return f"--profile={path}"


def test_all_ready_exits_0_and_writes_the_report(tmp_path):
    out = tmp_path / "report.json"
    done = PREFLIGHT.run(tmp_path, "--benchmark=memobench", _profile(tmp_path),
                         "--metrics=Plain", f"--output={out}")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(out.read_text())
    assert report["ready"] and report["schema_version"] == "worldeval.v1.PreflightReport/1"
    assert report["metrics"][0]["metric_id"] == "Plain"
    assert "Readiness is not evidence" in report["disclaimer"]


def test_a_metric_not_ready_exits_1(tmp_path):
    done = PREFLIGHT.run(tmp_path, "--benchmark=memobench", _profile(tmp_path))
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert any(l.split()[:2] == ["Plain", "ready"] for l in lines)
    assert any(l.split()[:3] == ["Exotic", "NOT", "READY"] for l in lines)
    assert any(l.split()[:3] == ["Later", "NOT", "READY"] and "not computed by worldeval yet"
               in l for l in lines)
    assert "1 of 3 metrics ready: NOT READY" in done.stdout


def test_memobench_profile_weight_free_metrics_ready_others_not(tmp_path):
    """The committed profile, with every cache empty (binary_runner isolates them)."""
    done = PREFLIGHT.run(tmp_path, "--benchmark=memobench",
                         "--metrics=GT_ALL_PSNR,GT_ALL_SSIM,GT_ALL_LPIPS")
    assert done.returncode == 1, done.stdout + done.stderr
    verdicts = {l.split()[0]: l for l in done.stdout.splitlines()[2:5]}
    assert verdicts["GT_ALL_PSNR"].split()[1] == "ready"
    assert verdicts["GT_ALL_SSIM"].split()[1] == "ready"
    assert "checkpoint alexnet (alexnet-owt-7be5be79.pth) not found" in verdicts["GT_ALL_LPIPS"]
    assert ("./bazelw run //tools:assets -- fetch --benchmark=memobench --metrics=GT_ALL_LPIPS"
            in done.stdout)


def test_unknown_benchmark_or_metric_exits_2_listing_the_valid_ones(tmp_path):
    done = PREFLIGHT.run(tmp_path, "--benchmark=nosuchbench")
    assert done.returncode == 2
    assert "'nosuchbench'" in done.stderr and "memobench" in done.stderr
    done = PREFLIGHT.run(tmp_path, "--benchmark=memobench", "--metrics=GT_ALL_PSNR,Nope")
    assert done.returncode == 2
    assert "'Nope'" in done.stderr and "GT_ALL_SSIM" in done.stderr


def test_missing_benchmark_flag_exits_2(tmp_path):
    done = PREFLIGHT.run(tmp_path)
    assert done.returncode == 2 and "--benchmark" in done.stderr
