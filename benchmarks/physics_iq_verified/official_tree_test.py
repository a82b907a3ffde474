"""The Verified runner end to end against the official physiq pipeline's own outputs on the
synthetic tree (testdata/verified_tree: physiq/ at main@023e069 run on
//tools/fixtures:physics_iq_tree as the Verified GT, runs `follows` and `diverges`; how in
README.md there): every mask file byte for byte, each run's CSV cell by cell, each
`{run}_metrics.json` byte for byte, and aggregate_runs_from_csvs.py's mean and std with ==.

One runner call scores both runs; the tests below share it (module fixture)."""

import csv
import hashlib
import json
import pathlib

import pytest

from benchmarks.common.flags import CommonConfig
from benchmarks.physics_iq import csv_file, verified_score
from benchmarks.physics_iq_verified import runner
from tools.fixtures import physics_iq_tree

OFFICIAL = pathlib.Path(__file__).parent / "testdata" / "verified_tree"
RUNS = ("follows", "diverges")  # the order given to upstream's --input_folders and aggregate
MASKS = json.loads((OFFICIAL / "official_mask_sha256.json").read_text())
AGGREGATE = json.loads((OFFICIAL / "official_aggregate.json").read_text())["runs"]


def _sha256(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return physics_iq_tree.write_tree(tmp_path_factory.mktemp("tree"))


@pytest.fixture(scope="module")
def scored(tree, tmp_path_factory):
    out = tmp_path_factory.mktemp("out")
    card = runner.run(runner.VerifiedConfig(
        common=CommonConfig(device="cpu"), real_dir=tree.benchmark,
        generated_dirs=tuple(tree.generated[r] for r in RUNS), descriptions=tree.descriptions,
        output_dir=out, model_name="m"))
    return card, out


def test_the_fixture_still_writes_the_input_upstream_was_run_on(tree):
    recorded = json.loads((OFFICIAL / "fixture_input_sha256.json").read_text())
    written = {str(p.relative_to(tree.root)): _sha256(p)
               for p in tree.root.rglob("*") if p.is_file()}
    assert written == recorded


def test_every_mask_file_equals_upstreams(scored):
    _, out = scored
    for run in RUNS:
        # Ours: <out>/video-masks/<run>/{real, generated/<run>}/30FPS/<name>; upstream's
        # <gt>/video-masks/{real, generated/<run>}/30FPS/<name> (run_physics_iq.py:384-391):
        # each run makes its own real masks, which must all equal upstream's one set.
        root = out / "video-masks" / run
        written = {str(p.relative_to(root)): _sha256(p) for p in root.rglob("*.mp4")}
        official = {k: v for k, v in MASKS.items()
                    if k.startswith("real/") or k.startswith(f"generated/{run}/")}
        assert len(official) == 27
        assert written == official


def _cells(path) -> list:
    """A metrics CSV's rows in file order, each (scenario, {column: cell text})."""
    with open(path, encoding="utf-8", newline="") as f:
        header, *records = list(csv.reader(f))
    return [(r[0], dict(zip(header, r))) for r in records]


@pytest.mark.parametrize("run", RUNS)
def test_each_runs_csv_equals_upstreams_cell_by_cell(scored, run):
    # Upstream orders the columns as compute_view_metrics returns them
    # (calculate_and_write_metrics_to_csv.py:248-261), our writer as the original track's
    # CSV (csv_file.COLUMNS): same cells, same rows in the same order, other column order.
    card, _ = scored
    ours = card.output_files[f"metrics_csv:{run}"]
    official = OFFICIAL / f"{run}.csv"
    assert csv_file.read_csv(ours) == csv_file.read_csv(official)
    assert _cells(ours) == _cells(official)  # the cell texts too, not only their floats


@pytest.mark.parametrize("run", RUNS)
def test_each_runs_metrics_json_equals_upstreams(scored, run):
    card, _ = scored
    ours = pathlib.Path(card.output_files[f"metrics_json:{run}"])
    official = OFFICIAL / f"{run}_metrics.json"
    assert json.loads(ours.read_text()) == json.loads(official.read_text())
    assert ours.read_bytes() == official.read_bytes()


def test_mean_and_std_over_the_two_runs_equal_upstreams_aggregate(scored):
    card, _ = scored
    metrics = {m.id: m for m in card.metrics}
    official = AGGREGATE["follows+diverges"]["values"]
    for name, key, _, _ in runner.metric_specs.SCORES:
        assert metrics[f"{name}_mean"].value == official[key]["mean"], name
        assert metrics[f"{name}_std"].value == official[key]["std"], name


def test_one_run_mean_equals_upstreams_and_its_std_is_none(scored):
    # aggregate_runs_from_csvs.py over follows.csv alone (std NaN upstream); ours through
    # the same function the runner aggregates with, on the runner's follows_metrics.json.
    card, _ = scored
    values = json.loads(pathlib.Path(card.output_files["metrics_json:follows"]).read_text())
    ours = verified_score.aggregate_runs([values])
    official = AGGREGATE["follows"]["values"]
    assert ours == {k: (v["mean"], None) for k, v in official.items()}
