"""Physics-IQ on --executor=processes: the fixture tree's CSV byte for byte as the local
loop writes it (and as the official pipeline does, testdata/official_tree), the same
per-view values, and a local --resume of the processes run recomputing nothing."""

import json
import pathlib

import pytest

from benchmarks.common import executor as executor_lib
from benchmarks.common import ray_executor
from benchmarks.common.flags import CommonConfig
from benchmarks.physics_iq import runner
from tools.fixtures import physics_iq_tree

OFFICIAL = pathlib.Path(__file__).parent / "testdata" / "official_tree"
MODEL = "follows"


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return physics_iq_tree.write_tree(tmp_path_factory.mktemp("tree"),
                                      physics_iq_tree.TreeSpec(models=(MODEL,)))


def _run(tree, out, **common):
    common = CommonConfig(device="cpu", **common)
    ray_executor.install(common)
    try:
        return runner.run(runner.PhysicsIQConfig(
            common=common, real_dir=tree.benchmark, generated_dir=tree.generated[MODEL],
            descriptions=tree.descriptions, output_dir=out, model_name=MODEL))
    finally:
        executor_lib.install(None)


def _values(card):
    """Each stored view's values and error, without timings."""
    rows = [json.loads(line) for line in
            pathlib.Path(card.output_files["per_sample_scores"]).read_text().splitlines()]
    return [(r["sample_id"], r.get("metrics"), r.get("error")) for r in rows]


def test_processes_write_the_local_csv_byte_for_byte(tree, tmp_path):
    local = _run(tree, tmp_path / "local")
    card = _run(tree, tmp_path / "processes", executor="processes", num_workers=2)
    assert card.run.flags["executor"] == "processes"
    csv = pathlib.Path(card.output_files["metrics_csv"]).read_bytes()
    assert csv == pathlib.Path(local.output_files["metrics_csv"]).read_bytes()
    assert csv == (OFFICIAL / f"{MODEL}.csv").read_bytes()
    assert _values(card) == _values(local) and len(_values(card)) == 9
    assert [(m.id, m.value) for m in card.metrics] == [(m.id, m.value) for m in local.metrics]

    store = pathlib.Path(card.output_files["per_sample_scores"])
    before = store.read_text()
    again = _run(tree, tmp_path / "processes", resume=True)  # local, on the processes run
    assert store.read_text() == before
    assert any("resum" in note and "9" in note for note in again.notes), list(again.notes)
