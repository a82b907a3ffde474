"""All MemoBench steps through the runner: Step 1 (weight-free backends), ORS with a
tiny random SAM-3, VQA with the loopback judge, and the leaderboard from the files.

Everything here is a test model: the SAM-3 is random and the judge is a scripted
server on 127.0.0.1, so the scorecard must say non-official and never FULL_SUITE.
The leaderboard numbers must equal the scorecard's, and each step's per-clip values
must appear in the merged per_sample_scores.jsonl.
"""

import csv
import json

import pytest

from benchmarks.common.flags import CommonConfig
from benchmarks.memobench import runner
from benchmarks.memobench.step1.prepare import Step1Settings
from benchmarks.memobench.vqa import judges
from metrics.judges import loopback_server as ls
from metrics.segmentation import tiny_sam3
from proto import scorecard_pb2
from tools.fixtures import memobench_fixture
from tools.fixtures import memobench_ors_metadata
from tools.fixtures import memobench_vqa_bank

CASES = [memobench_vqa_bank.Case("Barnyard", "1", "Barnyard_001"),
         memobench_vqa_bank.Case("City_Park", "1", "CityPark_001")]
VQA_IDS = ("InstructionFollowing", "ObjectBackground", "ContinuityOfMemory", "PhysicsAdherence")


def _rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    refused = ls.guard_loopback(mp)
    mp.setenv("GEMINI_API_KEY", "all-steps-test-key")
    root = tmp_path_factory.mktemp("memobench")
    built = memobench_fixture.build_memobench_fixture(root, seed=0)
    memobench_ors_metadata.write_ors_metadata(built)
    banks = memobench_vqa_bank.write_vqa_inputs(built["data_dir"] / "vqa_questions", CASES,
                                                seed=3)
    ckpt = tmp_path_factory.mktemp("ckpt")
    tiny_sam3.save_tiny_sam3(ckpt)
    gen = built["generated_dir"] / built["model"]
    out = root / "out"
    with ls.LoopbackJudgeServer() as server:
        for case in CASES:  # every answer "Yes": Positive questions pass
            bank = banks[case.clip_id]
            server.script(ls.GENERATE, ls.Reply(text=memobench_vqa_bank.judge_answer(
                bank, {q["ID"]: "Yes" for q in bank})))
        config = runner.MemobenchConfig(
            common=CommonConfig(offline=True), data_root=built["data_dir"], output_dir=out,
            model_name="TinyTestModels", generated_synthetic_dir=gen / "Synthetic",
            generated_real_dir=gen / "Real",
            step1=Step1Settings(device="cpu", checkpoint_dir=str(ckpt), offline=True,
                                flow_backend="dis", camera_backend="classical"),
            judge=judges.JudgeSettings(base_url=server.base_url, max_attempts=1,
                                       initial_backoff_s=0.0, poll_interval_s=0.0))
        card = runner.run(config)
    mp.undo()
    return card, out, banks, refused


def _metric(card, metric_id):
    return next(m for m in card.metrics if m.id == metric_id)


def test_nothing_left_loopback(run):
    assert run[3] == []


def test_every_step_wrote_its_official_file(run):
    _, out, _, _ = run
    for name in ("eval_both.csv", "ors_scores.csv", "leaderboard.csv",
                 "vqa_results/TinyTestModels/Barnyard-1.csv",
                 "vqa_results/TinyTestModels/overall.csv", "scorecard.json",
                 "per_sample_scores.jsonl"):
        assert (out / name).is_file(), name


def test_leaderboard_equals_scorecard(run):
    card, out, _, _ = run
    (row,) = _rows(out / "leaderboard.csv")
    assert row["Model"] == "tinytestmodels"
    for metric_id in ("ORS", "MotionSmoothness", "GT_ALL_PSNR", "GT_ALL_SSIM") + VQA_IDS:
        metric = _metric(card, metric_id)
        assert metric.available, (metric_id, metric.unavailable_reason)
        assert row[metric_id] == f"{metric.value:.4f}", metric_id
    ors = [float(r["ors"]) for r in _rows(out / "ors_scores.csv")]
    assert _metric(card, "ORS").value == pytest.approx(sum(ors) / len(ors) * 100, abs=1e-12)


def test_vqa_scores_follow_polarity(run):
    card, out, banks, _ = run
    samples = {s["sample_id"]: s for s in map(
        json.loads, (out / "per_sample_scores.jsonl").read_text().splitlines())}
    bank = banks["Barnyard-1"]
    dims = {"Instruction Following": "InstructionFollowing",
            "Object and Background": "ObjectBackground",
            "Continuity of Memory": "ContinuityOfMemory",
            "Physics Adherence": "PhysicsAdherence"}
    for dim, metric_id in dims.items():
        asked = [q for q in bank if q["Dimension"] == dim]
        positive = [q for q in asked if q["Dimension Polarity"] == "Positive"]
        expected = round(len(positive) / len(asked), 4)
        assert samples["Barnyard_001"]["metrics"][metric_id] == expected
    # Step 1 and ORS values sit in the same merged row.
    assert "ORS" in samples["Barnyard_001"]["metrics"]
    assert "GT_ALL_PSNR" in samples["Barnyard_001"]["metrics"]
    assert "InstructionFollowing" not in samples["Barnyard_002"]["metrics"]


def test_test_models_are_never_official(run):
    card = run[0]
    judge = _metric(card, "InstructionFollowing").backend
    assert not judge.official and "loopback" in judge.name
    assert card.verification.scope != scorecard_pb2.FULL_SUITE
    assert not card.verification.leaderboard_eligible
    reasons = {(b.reason, b.metric_id) for b in card.verification.blocking}
    assert (scorecard_pb2.NON_OFFICIAL_BACKEND, "InstructionFollowing") in reasons
    assert any(r == scorecard_pb2.NOT_OFFICIAL_DATA for r, _ in reasons)
    # The random SAM-3 matches no pinned digest: the scorecard says so.
    (ors_ref,) = [c for c in card.provenance.checkpoints if c.metric_id == "ORS"]
    assert not ors_ref.pinned_digest_matched
    said = (f"unchanged since its lock {ors_ref.lock_file}" if ors_ref.pin == "lock"
            else "no lock")
    assert any("without a pinned digest" in n and f"facebook/sam3 (ORS; {said})" in n
               for n in card.notes)


def test_steps_not_run_are_unavailable_with_the_reason(tmp_path):
    built = memobench_fixture.build_memobench_fixture(tmp_path / "m", seed=0)
    gen = built["generated_dir"] / built["model"]
    config = runner.MemobenchConfig(
        common=CommonConfig(offline=True), data_root=built["data_dir"],
        output_dir=tmp_path / "out", model_name="M", generated_synthetic_dir=gen / "Synthetic",
        generated_real_dir=gen / "Real", steps=("step1", "leaderboard"),
        step1=Step1Settings(offline=True, flow_backend="dis",
                            checkpoint_dir=str(tmp_path / "none")))
    card = runner.run(config)
    for metric_id in ("ORS",) + VQA_IDS:
        metric = _metric(card, metric_id)
        assert not metric.available and "--steps=step1,leaderboard" in metric.unavailable_reason
    (row,) = _rows(tmp_path / "out" / "leaderboard.csv")
    assert row["ORS"] == "" and row["MotionSmoothness"] == f"{_metric(card, 'MotionSmoothness').value:.4f}"
