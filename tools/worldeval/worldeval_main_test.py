"""//tools:worldeval: dispatch to the per-benchmark and cross-benchmark programs."""

from metrics.testing import binary_runner
from tools.catalog import catalog_lib
from tools.worldeval import dispatch

WORLDEVAL = binary_runner.Binary("tools/worldeval", "worldeval")


def test_catalog_runs_the_catalog_program(tmp_path):
    done = WORLDEVAL.run(tmp_path, "catalog")
    assert done.returncode == 0, done.stderr
    assert "42 benchmarks (30 video generation, 12 world model)" in done.stdout
    one = WORLDEVAL.run(tmp_path, "catalog", "--benchmark=memobench")
    assert one.returncode == 0 and "MemoBench" in one.stdout


def test_preflight_runs_preflight_with_its_exit_code(tmp_path):
    done = WORLDEVAL.run(tmp_path, "preflight", "--benchmark=memobench",
                         "--metrics=GT_ALL_PSNR,GT_ALL_LPIPS")
    assert done.returncode == 1, done.stdout + done.stderr  # LPIPS weights are not here
    lines = done.stdout.splitlines()
    assert any(l.split()[:2] == ["GT_ALL_PSNR", "ready"] for l in lines)
    assert any(l.split()[:3] == ["GT_ALL_LPIPS", "NOT", "READY"] for l in lines)
    ready = WORLDEVAL.run(tmp_path, "preflight", "--benchmark=memobench", "--metrics=GT_ALL_SSIM")
    assert ready.returncode == 0, ready.stdout + ready.stderr


def test_assets_and_run_pass_their_arguments_through(tmp_path):
    plan = WORLDEVAL.run(tmp_path, "assets", "plan", "--benchmark=video-bench")
    assert plan.returncode == 0 and "No runtime profile yet" in plan.stdout
    run = WORLDEVAL.run(tmp_path, "run", "--benchmark=memobench", "--help")
    assert "--generated_dir" in run.stdout, run.stderr[-3000:]  # the runner's own help (absl exits 1 after it)


def test_compare_runs_the_comparison_program(tmp_path):
    done = WORLDEVAL.run(tmp_path, "compare", "--scorecards=only_one.json")
    assert done.returncode == 2 and "--scorecards takes two files" in done.stderr


def test_help_lists_each_subcommand_in_one_line_and_the_runnable_benchmarks(tmp_path):
    runnable = list(dispatch.per_benchmark_targets("run"))
    for flag in ("--help", "-h", "help"):
        done = WORLDEVAL.run(tmp_path, flag)
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        for command in dispatch.SUBCOMMANDS:
            assert sum(1 for l in lines if l.split()[:1] == [command]) == 1, (command, lines)
        assert any(l.split()[:1] == ["report"] for l in lines)
        listed = next(l for l in lines if l.startswith("benchmarks with a run program: "))
        assert listed.startswith("benchmarks with a run program: " + ", ".join(runnable))
        assert f"; {len(catalog_lib.benchmark_ids()) - len(runnable)} more" in listed
        assert "video-bench" not in listed  # catalogued, no runner


def test_unknown_or_missing_subcommand_prints_the_usage_and_exits_2(tmp_path):
    done = WORLDEVAL.run(tmp_path, "evaluate", "--benchmark=memobench")
    assert done.returncode == 2
    assert "unknown subcommand 'evaluate'" in done.stderr and "subcommands:" in done.stderr
    done = WORLDEVAL.run(tmp_path)
    assert done.returncode == 2
    assert "no subcommand given" in done.stderr and "subcommands:" in done.stderr
    done = WORLDEVAL.run(tmp_path, "run", "--benchmark=nosuchbench")
    assert done.returncode == 2 and "'nosuchbench'" in done.stderr and "vbench" in done.stderr


def test_run_without_a_benchmark_offers_the_runnable_ones(tmp_path):
    done = WORLDEVAL.run(tmp_path, "run")
    assert done.returncode == 2
    runnable = ", ".join(dispatch.per_benchmark_targets("run"))
    assert f"run needs --benchmark=ID; benchmarks with a run program: {runnable};" in done.stderr
    assert "video-bench" not in done.stderr


def test_report_runs_the_report_program(tmp_path):
    done = WORLDEVAL.run(tmp_path, "report", "--scorecards=nothing_here.json",
                         f"--output={tmp_path / 'r.html'}")
    assert done.returncode == 2 and "nothing_here.json" in done.stderr, done.stderr


def test_a_benchmark_without_a_runner_says_which_have_one(tmp_path):
    done = WORLDEVAL.run(tmp_path, "run", "--benchmark=video-bench")
    assert done.returncode == 2
    assert "no run program for video-bench yet" in done.stderr
    assert "memobench (//benchmarks/memobench:run)" in done.stderr


def test_every_catalog_runner_and_importer_is_in_the_runfiles():
    for kind in dispatch.PER_BENCHMARK:
        for benchmark, label in dispatch.per_benchmark_targets(kind).items():
            assert WORLDEVAL.path.parent.parent.parent.joinpath(
                dispatch.runfile_of(label)).is_file(), (benchmark, label)
    assert {e.id for e in catalog_lib.load_catalog().benchmarks
            if e.targets} >= set(dispatch.per_benchmark_targets("run"))


def test_resolve_strips_the_benchmark_flag():
    assert dispatch.resolve(["run", "--benchmark", "memobench", "--limit=1"]) == (
        "//benchmarks/memobench:run", ["--limit=1"])
    assert dispatch.resolve(["preflight", "--benchmark=memobench"]) == (
        "//tools/preflight:preflight", ["--benchmark=memobench"])
