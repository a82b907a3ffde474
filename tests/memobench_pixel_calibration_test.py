"""worldeval's MemoBench PSNR/SSIM equal the official run_eval.py's on the same inputs.

The official values (benchmarks/memobench/calibration/pixel_fidelity_official.csv, with
how they were produced) were computed by MemoBench's own code on fixtures that
//tools/fixtures rebuilds byte for byte; here the runner recomputes them.
"""

import csv
import pathlib

import pytest

from benchmarks.common import paths
from benchmarks.common.flags import CommonConfig
from benchmarks.memobench import bundled_sample
from benchmarks.memobench import runner
from benchmarks.memobench.step1 import pixel
from benchmarks.memobench.step1.prepare import Step1Settings
from tools.fixtures import memobench_bench_fixture as bench

TABLE = "benchmarks/memobench/calibration/pixel_fidelity_official.csv"


def _official(fixture):
    with open(paths.runfile(TABLE), newline="") as f:
        return {(r["split"], r["clip_id"], r["column"]): r["official_value"]
                for r in csv.DictReader(f) if r["fixture"] == fixture}


def _ours(generated: pathlib.Path, data_root: pathlib.Path, out: pathlib.Path):
    runner.run(runner.MemobenchConfig(
        common=CommonConfig(offline=True, metrics=pixel.PSNR_SSIM_IDS), data_root=data_root,
        output_dir=out, model_name="Calibration", generated_synthetic_dir=generated / "Synthetic",
        generated_real_dir=generated / "Real", steps=(runner.STEP1,),
        step1=Step1Settings(offline=True)))
    with open(out / "eval_both.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return {(r["data_type"], r["id"], column): r[column]
            for r in rows for column in pixel.PSNR_SSIM_IDS}


def _assert_equal(ours, official):
    assert official, "no calibration rows"
    mismatches = {k: (ours.get(k), v) for k, v in official.items()
                  if ours.get(k) is None or float(ours[k]) != float(v)}
    assert not mismatches, mismatches
    assert set(ours) == set(official)


def test_bundled_sample_equals_the_official_values(tmp_path):
    inputs = bundled_sample.extract(tmp_path / "in")
    _assert_equal(_ours(inputs.generated_dir, inputs.data_root, tmp_path / "out"),
                  _official("bundled_sample"))


@pytest.mark.parametrize("fixture, synthetic, real", [("bench_1s1r", 1, 1)])
def test_realistic_size_clips_equal_the_official_values(tmp_path, fixture, synthetic, real):
    sizes = bench.BenchSizes(121, 81, (720, 1280), (480, 832))
    made = bench.build_bench_fixture(tmp_path / "bench", synthetic, real, sizes, 0)
    _assert_equal(_ours(pathlib.Path(made["generated_dir"]), pathlib.Path(made["data_dir"]),
                        tmp_path / "out"), _official(fixture))
