"""The full-suite gate: FULL_SUITE only for all 360 clips x all 14 metrics, official."""

import types

import pytest

from benchmarks.common import scorecard as card_lib
from benchmarks.common import trust
from benchmarks.common.flags import CommonConfig
from benchmarks.memobench import metric_specs
from benchmarks.memobench import official_clips
from benchmarks.memobench import verification
from proto import scorecard_pb2

_OFFICIAL = scorecard_pb2.Backend(
    name="official-backend", official=True, digest_pinned=True,
    parity=trust.verified("a calibration table", "the official package on real weights"))
_VQA_IDS = set(verification.VQA.metric_ids)


def _config(bundled=False, max_side=640, sample_step=4):
    return types.SimpleNamespace(bundled_sample=bundled, max_side=max_side,
                                 sample_step=sample_step, common=CommonConfig())


def _samples(drop=(), fail=(), no_vqa=(), extra=(), no_metric=()):
    """One sample per official clip (VQA metrics on the 45 VQA clips only)."""
    clips = [("synthetic", c) for c in official_clips.SYNTHETIC] + [
        ("real", c) for c in official_clips.REAL] + list(extra)
    samples = []
    for split, clip in clips:
        key = verification.clip_key(split, clip)
        if key in drop:
            continue
        sample = scorecard_pb2.SampleScore(sample_id=clip, split=split)
        if key in fail:
            sample.error = "unreadable frame"
        else:
            for spec in metric_specs.ALL:
                if (key, spec.id) in no_metric:
                    sample.unavailable[spec.id] = "geo3d: ValueError: depth map is empty"
                elif spec.id not in _VQA_IDS or (key in verification.VQA_CLIPS
                                                 and key not in no_vqa):
                    sample.metrics[spec.id] = 50.0
        samples.append(sample)
    return samples


def _card(samples, metric_ids=None, backends=None):
    card = scorecard_pb2.Scorecard(benchmark_id="memobench")
    vqa_samples = [s for s in samples
                   if verification.clip_key(s.split, s.sample_id) in verification.VQA_CLIPS]
    for spec in metric_specs.ALL:
        if metric_ids is None or spec.id in metric_ids:
            # As the runner: VQA metrics are aggregated over the VQA step's clips.
            card.metrics.append(card_lib.aggregate(
                spec, vqa_samples if spec.id in _VQA_IDS else samples,
                (backends or {}).get(spec.id, _OFFICIAL)))
    card.coverage.CopyFrom(card_lib.coverage(
        sorted(verification.OFFICIAL_CLIPS),
        [verification.clip_key(s.split, s.sample_id) for s in samples], samples, "test"))
    return card


def _assess(samples, config=None, **card_args):
    card = _card(samples, **card_args)
    return verification.assess(card, config or _config(), len(samples), samples=samples)


def test_steps_cover_the_fourteen_leaderboard_metrics_and_their_clips():
    ids = [m for step in verification.STEPS for m in step.metric_ids]
    assert sorted(ids) == sorted(spec.id for spec in metric_specs.LEADERBOARD)
    assert len(ids) == 14
    assert len(verification.OFFICIAL_CLIPS) == 360 and len(verification.VQA_CLIPS) == 45
    assert verification.VQA_CLIPS < verification.OFFICIAL_CLIPS
    assert "synthetic/ZenGarden_010" in verification.VQA_CLIPS


def test_everything_official_is_full_suite_and_eligible():
    ver = _assess(_samples())
    assert list(ver.blocking) == []
    assert ver.scope == scorecard_pb2.FULL_SUITE
    assert ver.leaderboard_eligible and ver.official_protocol
    # Without the samples (the runner's older call) the count check agrees.
    card = _card(_samples())
    assert verification.assess(card, _config(), 360).scope == scorecard_pb2.FULL_SUITE


_NEGATIVE_CASES = {
    "a missing clip": (dict(samples=dict(drop={"real/273"})), scorecard_pb2.INCOMPLETE_COVERAGE,
                       "real/273"),
    "a failed clip": (dict(samples=dict(fail={"synthetic/Barnyard_003"})),
                      scorecard_pb2.SAMPLE_ERRORS, "Barnyard_003"),
    "a VQA clip without VQA": (dict(samples=dict(no_vqa={"synthetic/Nordic_009"})),
                               scorecard_pb2.INCOMPLETE_COVERAGE, "44 of the 45 VQA clips"),
    "a clip outside the official set": (
        dict(samples=dict(extra=[("synthetic", "Barnyard_099")])),
        scorecard_pb2.NOT_OFFICIAL_DATA, "Barnyard_099"),
    "a metric not computed": (dict(metric_ids={s.id for s in metric_specs.ALL} - {"ORS"}),
                              scorecard_pb2.METRIC_UNAVAILABLE, "not selected (--metrics)"),
    "a non-official backend": (
        dict(backends={"MotionSmoothness": scorecard_pb2.Backend(name="opencv-dis")}),
        scorecard_pb2.NON_OFFICIAL_BACKEND, "opencv-dis"),
    "an official backend of unverified parity": (
        dict(backends={"GT_ALL_LPIPS": scorecard_pb2.Backend(
            name="lpips-v0.1-alex", official=True, digest_pinned=True,
            parity=trust.not_verified("tiny random weights"))}),
        scorecard_pb2.UNVERIFIED_PARITY, "lpips-v0.1-alex: parity with the official "
        "implementation not verified (checked: tiny random weights)"),
    "an unpinned checkpoint": (
        dict(backends={"ORS": scorecard_pb2.Backend(
            name="sam3", official=True, parity=_OFFICIAL.parity)}),
        scorecard_pb2.UNPINNED_CHECKPOINT, "sam3: a checkpoint was loaded without a pinned"),
    "a family that failed on one clip": (
        dict(samples=dict(no_metric={("real/007", "Geo3DConsistency")})),
        scorecard_pb2.INCOMPLETE_METRIC_COVERAGE,
        "Geo3DConsistency: computed on 359 of 360 samples; missing on 1: real/007 (first "
        "reason: geo3d: ValueError: depth map is empty)"),
    "the bundled sample": (dict(config=_config(bundled=True)), scorecard_pb2.NOT_OFFICIAL_DATA,
                           "bundled"),
    "a protocol flag": (dict(config=_config(max_side=320)), scorecard_pb2.PROTOCOL_DEVIATION,
                        "--max_side=320"),
}


@pytest.mark.parametrize("case", sorted(_NEGATIVE_CASES))
def test_each_gap_blocks_with_its_reason(case):
    args, reason, detail = _NEGATIVE_CASES[case]
    args = dict(args)
    samples = _samples(**args.pop("samples", {}))
    ver = _assess(samples, **args)
    assert not ver.leaderboard_eligible
    assert ver.scope == scorecard_pb2.BOUNDED
    hits = [b for b in ver.blocking if b.reason == reason]
    assert hits and any(detail in b.detail for b in hits), list(ver.blocking)


def test_an_unavailable_metric_blocks_with_its_reason():
    samples = _samples()
    card = _card(samples)
    card.metrics[0].Clear()
    card.metrics[0].CopyFrom(card_lib.unavailable(metric_specs.LEADERBOARD[0], "needs CLIP-IQA+"))
    ver = verification.assess(card, _config(), len(samples), samples=samples)
    assert [(b.metric_id, b.detail) for b in ver.blocking] == [
        ("VisualQuality", "needs CLIP-IQA+")]
    assert ver.scope == scorecard_pb2.BOUNDED


def test_count_fallback_still_reports_missing_and_failed_clips():
    samples = _samples(drop={"real/001"}, fail={"real/002"})
    card = _card(samples)
    ver = verification.assess(card, _config(), len(samples))
    reasons = [b.reason for b in ver.blocking]
    assert scorecard_pb2.INCOMPLETE_COVERAGE in reasons and scorecard_pb2.SAMPLE_ERRORS in reasons
    assert "358 of the 360 official clips" in ver.blocking[0].detail


def test_unknown_coverage_blocks_a_step_with_values():
    card = _card(_samples())
    blockers = verification.coverage_blockers(
        {"Step 1": None, "ORS": None, "VQA": None}, {}, card.metrics)
    assert [b.detail for b in blockers] == [
        f"{s.name}: per-clip coverage unknown (model-level values only)"
        for s in verification.STEPS]
