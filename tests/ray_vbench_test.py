"""VBench on a local two-actor Ray: the synthetic sample (tools/fixtures/vbench_clips.py)
scored on temporal_flickering (weight-free) and subject_consistency (tiny random DINO,
benchmarks/vbench/tiny_checkpoints.py, loaded on each actor), every row and both
aggregates the local run's."""

import dataclasses

import pytest

from benchmarks.common import executor as executor_lib
from benchmarks.common import ray_executor
from benchmarks.common.flags import CommonConfig
from benchmarks.vbench import runner as vbench_runner
from benchmarks.vbench import tiny_checkpoints
from tests import ray_cluster
from tests.ray_cluster import ray  # noqa: F401  (the pytest fixture)
from tools.fixtures import vbench_clips

DIMENSIONS = ("temporal_flickering", "subject_consistency")


def test_vbench_on_ray_equals_a_local_run(ray, tmp_path):
    del ray
    sample = vbench_clips.write_sample(tmp_path / "sample", frame_counts=(3, 5, 4, 6, 3))
    ckpt = tiny_checkpoints.write_all(tmp_path / "ckpt")
    cards = {}
    on_ray = CommonConfig(executor="ray", num_workers=2)
    for name, common in (("local", CommonConfig()), ("ray", on_ray)):
        common = dataclasses.replace(common, metrics=DIMENSIONS, offline=True, device="cpu",
                                     checkpoint_dir=str(ckpt))
        ray_executor.install(common)
        try:
            cards[name] = vbench_runner.run(vbench_runner.VBenchConfig(
                common=common, videos_path=sample / vbench_clips.VIDEOS,
                output_dir=tmp_path / name, model_name="m", name="m",
                full_info_json=sample / vbench_clips.FULL_INFO,
                architectures=tiny_checkpoints.ARCHITECTURES))
        finally:
            executor_lib.install(None)
    assert cards["ray"].run.flags["executor"] == "ray"
    rows = {n: ray_cluster.comparable(tmp_path / n / "per_sample_scores.jsonl") for n in cards}
    assert len(rows["ray"]) == 10 and not any(r.get("error") for r in rows["ray"])
    local = {r["sample_id"]: r for r in rows["local"]}
    for row in rows["ray"]:
        want = local[row["sample_id"]]
        assert {k: v for k, v in row.items() if k != "metrics"} == {
            k: v for k, v in want.items() if k != "metrics"}, row["sample_id"]
        assert row["metrics"].keys() == want["metrics"].keys(), row["sample_id"]
        for key, value in row["metrics"].items():
            # An actor runs torch on one thread, this process on two: DINO's float32
            # sums may move in the last bits; the weight-free values do not.
            tol = 0 if key == "temporal_flickering" else 1e-6
            assert value == pytest.approx(want["metrics"][key], rel=tol, abs=tol), (
                row["sample_id"], key)
    metrics = {n: {m.id: m for m in card.metrics} for n, card in cards.items()}
    for dim in DIMENSIONS:
        assert metrics["ray"][dim].available and metrics["ray"][dim].sample_count == 5
        assert metrics["ray"][dim].value == pytest.approx(metrics["local"][dim].value,
                                                          rel=1e-6)
