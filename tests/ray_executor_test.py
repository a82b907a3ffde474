"""--executor=ray on a local two-CPU Ray: the same outputs as the local loop, no sample
lost or stored twice when a worker dies, and a sample that keeps killing its worker
recorded as an error row. One Ray for the process (tests/ray_cluster.py: starting one
costs seconds), shared with ray_actor_test.py and ray_mirabench_test.py."""

import json
import os
import pathlib
import sys

import pytest

from benchmarks.common import executor as executor_lib
from benchmarks.common import ray_executor
from benchmarks.common import run_device
from benchmarks.common import sample_loop
from benchmarks.common.errors import InputError
from benchmarks.common.flags import CommonConfig
from benchmarks.common.sample_store import SampleStore
from metrics.testing import binary_runner
from proto import scorecard_pb2
from tests import ray_cluster
from tests.ray_cluster import ray  # noqa: F401  (the pytest fixture)




def _ray_config(**kw) -> CommonConfig:
    return CommonConfig(executor="ray", num_workers=2, **kw)


# --- the loop on synthetic items: each item's value is known --------------------------

def _ref(item):
    return sample_loop.SampleRef(f"s{item:02d}", "split")


def _load(item):
    return item * 10


def _score_dying(marker_dir: str, victim: int, always: bool):
    """score() that kills its worker process on `victim` (once, or every time)."""
    def score(item, loaded):
        if item == victim:
            marker = pathlib.Path(marker_dir) / f"died-{item}"
            if always or not marker.exists():
                marker.touch()
                os._exit(1)  # pylint: disable=protected-access
        sample = scorecard_pb2.SampleScore(sample_id=f"s{item:02d}", split="split")
        sample.metrics["value"] = loaded + 1
        sample.diagnostics["pid"] = str(os.getpid())
        return sample
    return score


def _run_items(tmp_path, items, score):
    path = tmp_path / "per_sample_scores.jsonl"
    seen = []
    with SampleStore(path, "digest", resume=False) as store:
        outcome = sample_loop.run(items, _ref, store, _load, score, "test",
                                  on_sample=lambda item, s: seen.append(item))
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return outcome, lines, seen


def test_the_local_executor_never_imports_ray(tmp_path):
    """Runs first (before the module's Ray starts): --executor=local leaves ray alone."""
    ray_executor.install(CommonConfig())
    assert executor_lib.current() is None
    outcome, lines, _ = _run_items(tmp_path, [0, 1], _score_dying(str(tmp_path), -1, False))
    assert [s.metrics["value"] for s in outcome.samples] == [1, 11] and len(lines) == 2
    assert "ray" not in sys.modules
    assert executor_lib.record() == {"executor": "local"}


def test_a_killed_worker_loses_no_sample_and_stores_none_twice(ray, tmp_path):
    del ray
    ray_executor.install(_ray_config(max_sample_retries=2))
    items = list(range(8))
    outcome, lines, seen = _run_items(tmp_path, items, _score_dying(str(tmp_path), 3, False))
    assert [line["sample_id"] for line in lines] == [f"s{i:02d}" for i in items]
    assert [s.metrics["value"] for s in outcome.samples] == [i * 10 + 1 for i in items]
    assert not any(s.error for s in outcome.samples)
    assert outcome.samples[3].diagnostics[ray_executor.WORKER_LOST] == "1"
    assert seen == items  # on_sample in the samples' order, whatever order they arrived in
    assert len({s.diagnostics["pid"] for s in outcome.samples}) >= 2  # both actors scored
    assert executor_lib.record()["ray_workers"] == "2"


def test_a_sample_that_always_kills_its_worker_is_an_error_row(ray, tmp_path):
    del ray
    ray_executor.install(_ray_config(max_sample_retries=0))
    items = list(range(5))
    outcome, lines, _ = _run_items(tmp_path, items, _score_dying(str(tmp_path), 2, True))
    assert len(lines) == 5
    bad = outcome.samples[2]
    assert "its Ray worker died" in bad.error and "1 of them with no other sample" in bad.error
    assert "--max_sample_retries=0" in bad.error
    assert not sample_loop.is_internal_error(bad)
    assert [s.metrics["value"] for i, s in enumerate(outcome.samples) if i != 2] == [
        1, 11, 31, 41]


# --- a runner end to end: MemoBench's bundled sample, weight-free Step 1 metrics --------

_RUN = "benchmarks.memobench.run"
_FLAGS = ("--metrics=GT_ALL_PSNR,GT_ALL_SSIM", "--steps=step1", "--offline")


def _memobench(tmp_path, out, *extra):
    done = binary_runner.run_in_process(_RUN, tmp_path, f"--output_dir={out}", *_FLAGS, *extra)
    assert done.returncode == 0, done.stderr + done.stdout
    return json.loads((out / "scorecard.json").read_text())


def test_memobench_step1_on_ray_equals_the_local_loop(ray, tmp_path):
    del ray
    local = _memobench(tmp_path, tmp_path / "local")
    assert local["run"]["flags"]["executor"] == "local"
    on_ray = _memobench(tmp_path, tmp_path / "ray", "--executor=ray", "--num_workers=2")
    assert on_ray["run"]["flags"]["executor"] == "ray"
    assert on_ray["run"]["flags"]["ray_workers"] == "2"
    assert json.loads(on_ray["run"]["flags"]["ray_cluster"])["CPU"] == 2
    for name in ("per_sample_scores.jsonl", "step1_per_sample_scores.jsonl"):
        if (tmp_path / "local" / name).is_file():
            assert ray_cluster.comparable(tmp_path / "ray" / name) == ray_cluster.comparable(
                tmp_path / "local" / name), name
    assert (tmp_path / "ray" / "eval_both.csv").read_bytes() == (
        tmp_path / "local" / "eval_both.csv").read_bytes()
    values = lambda card: [(m["id"], m.get("value"), m.get("sampleCount"))
                           for m in card["metrics"]]
    assert values(on_ray) == values(local)
    assert any(m.get("available") for m in on_ray["metrics"])

    # Resume works across executors: a local --resume of the Ray run recomputes nothing.
    store = tmp_path / "ray" / "step1_per_sample_scores.jsonl"
    before = store.read_text()
    _memobench(tmp_path, tmp_path / "ray", "--resume")
    assert store.read_text() == before


def test_the_plan_fits_the_cluster(ray):
    plan = lambda **kw: ray_executor.RayExecutor(CommonConfig(executor="ray", **kw))._plan(
        ray, todo_count=10)
    assert plan() == (2, 1.0, 0.0)  # one actor per CPU of this two-CPU Ray, no GPU
    assert plan(num_workers=4) == (4, 0.5, 0.0)  # more actors than CPUs share them
    assert plan(num_workers=30)[0] == 10  # never more actors than samples
    with pytest.raises(InputError, match="GPUs"):
        plan(gpus_per_worker=1.0)  # this Ray has no GPU: the actors would wait forever


def test_the_device_is_the_actors_not_the_drivers(ray):
    device = lambda **kw: ray_executor.RayExecutor(
        CommonConfig(executor="ray", **kw)).device(kw.get("device", "auto"))
    assert device() == "cpu"  # this Ray has no GPU
    assert device(gpus_per_worker=1.0) == "cuda"  # actors given a GPU run on it
    assert device(device="cpu", gpus_per_worker=1.0) == "cpu"
    with pytest.raises(InputError, match="cuda:0"):
        ray_executor.install(CommonConfig(executor="ray", device="cuda:1"))
    with pytest.raises(InputError, match="gpus_per_worker"):
        ray_executor.install(CommonConfig(executor="ray", device="cuda", gpus_per_worker=0))
    ray_executor.install(CommonConfig(executor="ray", device="cuda:0"))
    ray_executor.install(CommonConfig())  # back to the local loop
    assert run_device.resolve("cpu") == "cpu"

