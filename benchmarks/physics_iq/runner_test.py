"""The Physics-IQ runner end to end on the synthetic tree (//tools/fixtures:physics_iq_tree)
against the official pipeline's outputs on the same tree (testdata/official_tree): the
score, the CSV byte for byte, resume, one broken view, a partial real tree."""

import json
import pathlib
import shutil

import pytest

from benchmarks.common.errors import InputError
from benchmarks.common.flags import CommonConfig
from benchmarks.physics_iq import runner
from proto import scorecard_pb2
from tools.fixtures import physics_iq_tree

OFFICIAL = pathlib.Path(__file__).parent / "testdata" / "official_tree"
SCORES = json.loads((OFFICIAL / "official_scores.json").read_text())["scores"]


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return physics_iq_tree.write_tree(tmp_path_factory.mktemp("tree"))


def _run(tree, model, out, generated=None, **common):
    return runner.run(runner.PhysicsIQConfig(
        common=CommonConfig(device="cpu", **common), real_dir=tree.benchmark,
        generated_dir=generated or tree.generated[model], descriptions=tree.descriptions,
        output_dir=out, model_name=model))


def _metrics(card):
    return {m.id: m for m in card.metrics}


def test_score_and_csv_equal_the_official_pipeline_and_resume_recomputes_nothing(
        tree, tmp_path):
    card = _run(tree, "diverges", tmp_path / "out")
    metrics = _metrics(card)
    assert metrics["physics_iq_score"].value == SCORES["diverges"]["calculate_iq_score"][0]
    assert all(m.available and m.sample_count == 9 for m in card.metrics)
    csv = pathlib.Path(card.output_files["metrics_csv"])
    assert csv == tmp_path / "out" / "results" / "diverges.csv"
    assert csv.read_bytes() == (OFFICIAL / "diverges.csv").read_bytes()
    rows = [json.loads(line) for line in
            pathlib.Path(card.output_files["per_sample_scores"]).read_text().splitlines()]
    assert len(rows) == 9
    verification = card.verification  # a synthetic tree is not the official data
    assert not verification.leaderboard_eligible
    assert [b.reason for b in verification.blocking] == [scorecard_pb2.NOT_OFFICIAL_DATA]

    again = _run(tree, "diverges", tmp_path / "out", resume=True)
    assert _metrics(again)["physics_iq_score"].value == metrics["physics_iq_score"].value
    assert any("resum" in note and "9" in note for note in again.notes), list(again.notes)


def test_a_broken_video_fails_its_view_and_its_scenario_leaves_the_csv(tree, tmp_path):
    generated = tmp_path / "follows"
    shutil.copytree(tree.generated["follows"], generated)
    broken = sorted(generated.glob("0005_*.mp4"))[0]
    broken.write_bytes(broken.read_bytes()[:300])
    card = _run(tree, "follows", tmp_path / "out", generated=generated)
    score = _metrics(card)["physics_iq_score"]
    assert score.available and score.sample_count == 6
    assert len(score.missing_sample_ids) == 3  # the broken view and its scenario's two others
    assert any("0005_" in key for key in score.missing_sample_ids)
    lines = pathlib.Path(card.output_files["metrics_csv"]).read_text().splitlines()
    assert len(lines) == 3 and not any("block-slides" in line for line in lines)


def test_a_partial_real_tree_is_refused_naming_every_missing_file(tree, tmp_path):
    real = tmp_path / "physics-IQ-benchmark"
    shutil.copytree(tree.benchmark, real)
    gone = sorted((real / "split-videos" / "testing" / "30FPS").glob("*.mp4"))[:2]
    for path in gone:
        path.unlink()
    with pytest.raises(InputError) as raised:
        runner.run(runner.PhysicsIQConfig(
            common=CommonConfig(device="cpu"), real_dir=real,
            generated_dir=tree.generated["follows"], descriptions=tree.descriptions,
            output_dir=tmp_path / "out", model_name="follows"))
    for path in gone:
        assert path.name in str(raised.value)
