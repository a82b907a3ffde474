"""MiraBench on a local two-actor Ray with a real model (the packaged Inception-v3): the
set metrics' per-video embeddings come back from the actors with their samples."""

import dataclasses
import io

import numpy
import pytest
from google.protobuf import json_format

from benchmarks.common import executor as executor_lib
from benchmarks.common import ray_executor
from benchmarks.common import sample_store
from benchmarks.common.flags import CommonConfig
from benchmarks.mirabench import runner as mirabench_runner
from proto import scorecard_pb2
from tests import ray_cluster
from tests.ray_cluster import ray  # noqa: F401  (the pytest fixture)
from tools.fixtures import mirabench_clips


def test_mirabench_fid_on_ray_reads_the_actors_embeddings(ray, tmp_path):
    """The real packaged Inception-v3 on two actors: each generated video embedded where
    it was decoded, its pool3 features back as the row's attachment, and the FID the
    local run's. Not bit for bit: an actor (one CPU) runs torch on one thread, this
    process on two, and Inception's float32 features move by ~2e-6 between the two."""
    del ray
    clip = mirabench_clips.parallax_clip
    gen = mirabench_clips.write_set(tmp_path, {1: clip(6, 0, 72, 128), 2: clip(6, 3, 72, 128)},
                                    "gen", "meta_gen.csv")
    gt = mirabench_clips.write_set(tmp_path, {1: clip(6, 7, 72, 128), 2: clip(6, 9, 72, 128)},
                                   "gt", "meta_gt.csv")
    cards = {}
    on_ray = CommonConfig(executor="ray", num_workers=2)
    for name, common in (("local", CommonConfig()), ("ray", on_ray)):
        common = dataclasses.replace(common, metrics=("fid&kid",), offline=True, device="cpu")
        ray_executor.install(common)
        try:
            cards[name] = mirabench_runner.run(mirabench_runner.MiraBenchConfig(
                common=common, meta_csv=gen, generated_dir=tmp_path / "gen",
                output_dir=tmp_path / name, model_name="m", gt_meta_csv=gt,
                gt_dir=tmp_path / "gt"))
        finally:
            executor_lib.install(None)
    assert cards["ray"].run.flags["executor"] == "ray"
    fid = {n: {m.id: m for m in card.metrics}["fid"] for n, card in cards.items()}
    assert fid["ray"].available and fid["ray"].value == pytest.approx(fid["local"].value,
                                                                      rel=1e-4)
    store = "per_sample_scores.jsonl"
    digestless = lambda rows: [{**row, "diagnostics": {
        k: v for k, v in row["diagnostics"].items()
        if not k.startswith(sample_store.ATTACHMENT_KEY)}} for row in rows]
    assert digestless(ray_cluster.comparable(tmp_path / "ray" / store)) == digestless(
        ray_cluster.comparable(tmp_path / "local" / store))
    features = {}
    for name in cards:
        path = tmp_path / name / store
        rows = [json_format.Parse(line, scorecard_pb2.SampleScore())
                for line in path.read_text().splitlines()]
        features[name] = [numpy.load(io.BytesIO(sample_store.read_attachment(
            path, row, "inception_pool3.npy"))) for row in rows]
    assert len(features["ray"]) == 2
    for on_ray, local in zip(features["ray"], features["local"]):
        assert on_ray.shape == local.shape == (6, 2048)
        numpy.testing.assert_allclose(on_ray, local, rtol=1e-4, atol=1e-5)
