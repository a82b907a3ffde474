"""The whole original-track computation against the official pipeline's own outputs on the
synthetic tree (testdata/official_tree: upstream e457754 run on
//tools/fixtures:physics_iq_tree, README.md there): every mask file byte for byte, the
per-model CSV byte for byte, and calculate_iq_score's two numbers with ==."""

import hashlib
import json
import pathlib

import pytest

from benchmarks.physics_iq import csv_file, iq_score
from benchmarks.physics_iq import layout as layout_lib
from benchmarks.physics_iq import sample as sample_lib
from benchmarks.physics_iq import scenario_rows
from tools.fixtures import physics_iq_tree

OFFICIAL = pathlib.Path(__file__).parent / "testdata" / "official_tree"
SCORES = json.loads((OFFICIAL / "official_scores.json").read_text())["scores"]
MASKS = json.loads((OFFICIAL / "official_mask_sha256.json").read_text())


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return physics_iq_tree.write_tree(tmp_path_factory.mktemp("tree"))


def _sha256(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("model", physics_iq_tree.MODELS)
def test_masks_csv_and_score_equal_the_official_pipeline(tree, model, tmp_path):
    laid = layout_lib.lay_out(tree.benchmark, tree.descriptions, tree.generated[model])
    laid.raise_if_refused()
    assert not laid.masks_present  # the tree has no real masks: made as upstream makes them
    setup = sample_lib.Setup(fps=laid.fps, track="original", masks_out=tmp_path / "masks",
                             model=model, real_masks_present=False)
    views = [sample_lib.View(item, setup) for item in laid.samples]
    samples = [sample_lib.score(view, sample_lib.load(view)) for view in views]

    written = {str(p.relative_to(setup.masks_out)): _sha256(p)
               for p in setup.masks_out.rglob("*.mp4")}
    official = {k: v for k, v in MASKS.items()
                if k.startswith("real/") or k.startswith(f"generated/{model}/")}
    assert written == official

    rows, lacking = scenario_rows.scenario_rows(samples)
    assert not lacking
    ours = tmp_path / f"{model}.csv"
    csv_file.write_csv(ours, rows)
    assert ours.read_bytes() == (OFFICIAL / f"{model}.csv").read_bytes()

    score = iq_score.calculate_iq_score(csv_file.read_csv(ours))
    assert [score.score, score.physical_variance] == SCORES[model]["calculate_iq_score"]


def test_the_three_models_are_told_apart():
    scores = {m: SCORES[m]["calculate_iq_score"][0] for m in physics_iq_tree.MODELS}
    assert scores["follows"] > scores["freezes"] > scores["diverges"]
