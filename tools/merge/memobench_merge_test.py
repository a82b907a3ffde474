"""MemoBench shards merged equal a single run (merge_check.py): the bundled sample's
Step 1 on its weight-free metrics (OpenCV DIS flow, classical camera rotation, PSNR and
SSIM against GT) and the leaderboard, eval_both.csv and leaderboard.csv included."""

from benchmarks.memobench import run as memobench_run
from benchmarks.memobench import runner as memobench_runner
from tools.merge import merge_check

_METRICS = ["MotionSmoothness", "CameraControllability", "GT_ALL_PSNR", "GT_ALL_SSIM",
            "GT_O_PSNR", "GT_R_SSIM"]
CASE = merge_check.Case(
    "memobench", memobench_run, memobench_runner,
    ["--metrics=" + ",".join(_METRICS), "--flow_backend=dis", "--camera_backend=classical",
     "--steps=step1,leaderboard", "--device=cpu", "--offline"])
runs = merge_check.runs_fixture(CASE)


def test_shards_split_the_clips(runs):
    merge_check.assert_shards_split(runs)


def test_merged_outputs_equal_a_single_run(runs):
    # "Step 1: N s spent in per-clip evaluation" is a duration ("resumed: N clips (Step 1)
    # reused", where the merged run's samples came from, is left out for every benchmark).
    names = merge_check.assert_merged_equals_single(runs, run_notes=("Step 1: ",))
    assert {"eval_both.csv", "leaderboard.csv"} <= set(names), names
