"""MemoBench on the shared engine: unchanged numbers, errors at the right depth, the gate.

- The bundled sample's numbers equal, value for value, the committed evidence scorecard
  (tools/catalog/evidence/memobench, made before the engine existed).
- A bug in a family on one clip fails that clip with the traceback, the others keep the
  clean run's values, the scorecard names it and the runner's main exits 1 at the end.
- A family that cannot score one clip leaves its metrics missing there: the metric's
  coverage names the clip, and the run is not eligible.
"""

import json

import pytest
from absl import flags

from benchmarks.common import paths
from benchmarks.common.flags import CommonConfig
from benchmarks.memobench import bundled_sample
from benchmarks.memobench import run as run_main
from benchmarks.memobench import runner
from benchmarks.memobench.step1 import pixel
from benchmarks.memobench.step1.prepare import Step1Settings
from proto import scorecard_pb2

EVIDENCE = "tools/catalog/evidence/memobench/bundled_sample_scorecard.json"
PSNR_SSIM = list(pixel.PSNR_SSIM_IDS)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    return bundled_sample.extract(tmp_path_factory.mktemp("bundled"))


def _run(inputs, out, metrics=None, steps=runner.STEPS):
    gen = inputs.generated_dir
    return runner.run(runner.MemobenchConfig(
        common=CommonConfig(offline=True, metrics=tuple(metrics) if metrics else None),
        data_root=inputs.data_root, output_dir=out, model_name=inputs.model_name,
        generated_synthetic_dir=gen / "Synthetic", generated_real_dir=gen / "Real",
        bundled_sample=True, steps=steps,
        step1=Step1Settings(offline=True, checkpoint_dir=str(out / "no-checkpoints"))))


def _values(card):
    return {m.id: (m.value, m.sample_count) for m in card.metrics if m.available}


def test_bundled_sample_numbers_equal_the_evidence_scorecard(inputs, tmp_path):
    evidence = json.loads(paths.runfile(EVIDENCE).read_text())
    expected = {m["id"]: m["value"] for m in evidence["metrics"] if m.get("available")}
    card = _run(inputs, tmp_path / "out")
    assert {k: v for k, (v, _) in _values(card).items()} == expected
    # Each per-metric coverage is complete on the sample: every scored clip has them.
    for metric in card.metrics:
        if metric.available:
            assert metric.sample_count == metric.expected_sample_count, metric.id


def _sabotage(monkeypatch, clip_id, error):
    real = pixel.PixelFidelity.compute

    def compute(self, ctx):
        if ctx.sample_id == clip_id:
            raise error
        return real(self, ctx)

    monkeypatch.setattr(pixel.PixelFidelity, "compute", compute)


def test_a_family_bug_fails_one_clip_with_its_traceback_and_the_rest_are_intact(
        inputs, tmp_path, monkeypatch):
    clean = _run(inputs, tmp_path / "clean", PSNR_SSIM, (runner.STEP1,))
    _sabotage(monkeypatch, "Barnyard_001", TypeError("unsupported operand"))
    card = _run(inputs, tmp_path / "bug", PSNR_SSIM, (runner.STEP1,))
    assert list(card.coverage.internal_error_sample_ids) == ["synthetic/Barnyard_001"]
    rows = [json.loads(line) for line in
            (tmp_path / "bug" / "per_sample_scores.jsonl").read_text().splitlines()]
    by_id = {r["sample_id"]: r for r in rows}
    error = by_id["Barnyard_001"]["error"]
    assert error.startswith("internal error in family pixel_fidelity (a worldeval bug")
    assert "TypeError: unsupported operand" in error and "Traceback" in error
    clean_rows = {json.loads(line)["sample_id"]: json.loads(line) for line in
                  (tmp_path / "clean" / "per_sample_scores.jsonl").read_text().splitlines()}
    for sample_id, row in by_id.items():
        if sample_id != "Barnyard_001":
            assert row["metrics"] == clean_rows[sample_id]["metrics"], sample_id
    reasons = {b.reason for b in card.verification.blocking}
    assert scorecard_pb2.INTERNAL_ERRORS in reasons
    assert _values(card) != _values(clean)  # one clip fewer in the means


def test_the_runner_main_exits_1_after_writing_everything(inputs, tmp_path, monkeypatch,
                                                          capsys):
    _sabotage(monkeypatch, "Barnyard_001", KeyError("phase"))
    out = tmp_path / "main"
    flags.FLAGS.unparse_flags()
    flags.FLAGS([
        "run", f"--generated_dir={inputs.generated_dir}", f"--data_root={inputs.data_root}",
        f"--output_dir={out}", "--offline", "--steps=step1", "--metrics=" + ",".join(PSNR_SSIM),
        f"--checkpoint_dir={tmp_path / 'none'}"])
    try:
        with pytest.raises(SystemExit) as exited:
            run_main.main(["run"])
    finally:
        flags.FLAGS.unparse_flags()
    assert exited.value.code == 1
    assert (out / "scorecard.json").is_file() and (out / "eval_both.csv").is_file()
    assert "synthetic/Barnyard_001" in capsys.readouterr().err


def test_a_family_that_cannot_score_one_clip_blocks_with_metric_count_and_clip(
        inputs, tmp_path, monkeypatch):
    _sabotage(monkeypatch, "Barnyard_001", ValueError("GT video is shorter than its sheet"))
    card = _run(inputs, tmp_path / "gap", PSNR_SSIM, (runner.STEP1,))
    assert not card.coverage.internal_error_sample_ids
    psnr = next(m for m in card.metrics if m.id == "GT_ALL_PSNR")
    assert psnr.available and psnr.sample_count == psnr.expected_sample_count - 1
    assert list(psnr.missing_sample_ids) == ["synthetic/Barnyard_001"]
    assert psnr.missing_reasons["synthetic/Barnyard_001"] == (
        "pixel_fidelity: ValueError: GT video is shorter than its sheet")
    blockers = [b for b in card.verification.blocking
                if b.reason == scorecard_pb2.INCOMPLETE_METRIC_COVERAGE
                and b.metric_id == "GT_ALL_PSNR"]
    assert blockers and "missing on 1: synthetic/Barnyard_001" in blockers[0].detail
    assert not card.verification.leaderboard_eligible


def test_every_available_backend_says_its_three_trust_facts(inputs, tmp_path):
    card = _run(inputs, tmp_path / "trust", PSNR_SSIM, (runner.STEP1,))
    for metric in card.metrics:
        assert metric.backend.official and metric.backend.digest_pinned  # weight-free
        assert metric.backend.parity.verified  # calibrated against run_eval.py
        assert "pixel_fidelity_official.csv" in metric.backend.parity.evidence
        assert metric.backend.implementation
    trust_blockers = {scorecard_pb2.UNVERIFIED_PARITY, scorecard_pb2.UNPINNED_CHECKPOINT,
                      scorecard_pb2.NON_OFFICIAL_BACKEND}
    assert not [b for b in card.verification.blocking if b.reason in trust_blockers]


def test_model_backends_are_not_claimed_verified(inputs, tmp_path):
    from benchmarks.memobench.step1 import prepare  # pylint: disable=import-outside-toplevel
    # These have parity-kit entries (tools/calibration/parity.csv) that CI recomputes, on
    # random weights.
    for backend in (prepare.LPIPS_BACKEND, prepare.RAFT_BACKEND):
        parity = backend.parity
        assert parity.verified and "tools/calibration/parity.csv" in parity.evidence
        assert parity.scope.endswith("real weights not compared"), backend.name
    # MapAnything's call path was compared once, outside the repository, with both sides
    # stored (CI cannot install map-anything): a recorded comparison, not verified.
    parity = prepare.MAPANYTHING_BACKEND.parity
    assert not parity.verified and not parity.evidence
    assert "recorded comparison (2026-12-01" in parity.scope
    assert "not recomputed by CI" in parity.scope
