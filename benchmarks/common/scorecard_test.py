"""Aggregation, coverage, verification and the raw table, on hand-made samples."""

import json
import math

import numpy as np
import pytest

from benchmarks.common import blockers
from benchmarks.common import intervals
from benchmarks.common import outputs
from benchmarks.common import scorecard as card_lib
from benchmarks.common import summary
from proto import scorecard_pb2

SPEC = card_lib.MetricSpec("PSNR", "PSNR", "dB", True, True)
BACKEND = scorecard_pb2.Backend(name="b", official=True)


def _s(sid, split="synthetic", error="", **metrics):
    sample = scorecard_pb2.SampleScore(sample_id=sid, split=split, error=error)
    sample.metrics.update(metrics)
    return sample


def test_mean_and_interval_match_hand_computation():
    samples = [_s("a", PSNR=10.0), _s("b", PSNR=20.0), _s("c", PSNR=30.0), _s("d", error="x")]
    result = card_lib.aggregate(SPEC, samples, BACKEND)
    assert result.available and result.value == 20.0 and result.sample_count == 3
    half = 1.96 * math.sqrt(100.0 / 3)  # sample variance 100
    assert result.ci95.low == pytest.approx(20.0 - half)
    assert result.ci95.high == pytest.approx(20.0 + half)


def test_no_values_is_unavailable_with_the_sample_reason():
    sample = _s("a")
    sample.unavailable["PSNR"] = "GT missing"
    result = card_lib.aggregate(SPEC, [sample], BACKEND)
    assert not result.available and not result.HasField("value")
    assert result.unavailable_reason == "GT missing"


def test_coverage_counts():
    samples = [_s("a", PSNR=1.0), _s("b", error="bad"), _s("r", split="real", PSNR=2.0)]
    cov = card_lib.coverage(["a", "b", "r", "z"], ["a", "b", "r"], samples, "sheet")
    assert (cov.expected, cov.evaluated, cov.failed) == (4, 2, 1)
    assert list(cov.missing_sample_ids) == ["z"] and list(cov.failed_sample_ids) == ["b"]
    assert dict(cov.evaluated_by_split) == {"synthetic": 1, "real": 1}


@pytest.mark.parametrize("blockers,evaluated,imported,scope,eligible", [
    ([], 10, False, scorecard_pb2.FULL_SUITE, True),
    ([card_lib.blocker(scorecard_pb2.INCOMPLETE_COVERAGE, "x")], 10, False,
     scorecard_pb2.BOUNDED, False),
    ([], 0, False, scorecard_pb2.NOT_EXECUTED, False),
    ([], 10, True, scorecard_pb2.IMPORTED_OFFICIAL_RESULTS, False),
])
def test_verification_scope(blockers, evaluated, imported, scope, eligible):
    ver = card_lib.verification(blockers, [], evaluated, imported)
    assert ver.scope == scope and ver.leaderboard_eligible == eligible


def test_non_official_backend_is_not_official_protocol():
    ver = card_lib.verification(
        [card_lib.blocker(scorecard_pb2.NON_OFFICIAL_BACKEND, "dis", "MotionSmoothness")], [], 5)
    assert not ver.official_protocol and ver.scope == scorecard_pb2.BOUNDED


def test_raw_table_rows(tmp_path):
    ok = _s("a", PSNR=12.5)
    ok.unavailable["LPIPS"] = "no weights"
    rows_path = outputs.RunOutputs(tmp_path).write_raw_table([ok, _s("b", error="bad")],
                                                             ["PSNR", "LPIPS"])
    rows = [json.loads(line) for line in rows_path.read_text().splitlines()]
    assert rows[0] == {"sample_id": "a", "split": "synthetic", "metric_id": "PSNR", "value": 12.5}
    assert rows[1]["unavailable_reason"] == "no weights" and "value" not in rows[1]
    assert rows[2]["unavailable_reason"] == "sample failed: bad"


def test_summary_names_unavailable_metrics():
    card = scorecard_pb2.Scorecard(benchmark_id="memobench", model_name="M")
    card.metrics.append(card_lib.aggregate(SPEC, [_s("a", PSNR=3.0)], BACKEND))
    card.metrics.append(card_lib.unavailable(card_lib.MetricSpec("L", "L", "0-1", False),
                                             "no weights"))
    text = summary.format_summary(card)
    assert "3.0000" in text and "unavailable [1]" in text and "[1] L: no weights" in text


def test_markdown_and_json_summaries_carry_the_values_and_reasons():
    card = scorecard_pb2.Scorecard(benchmark_id="b", model_name="m")
    card.metrics.append(card_lib.aggregate(SPEC, [_s("a", PSNR=3.0), _s("b", PSNR=5.0)], BACKEND))
    card.metrics.append(card_lib.unavailable(card_lib.MetricSpec("L", "L", "0-1", False),
                                             "no | weights"))
    card.notes.append("a note")
    data = json.loads(summary.format_json(card))
    psnr, lpips = data["metrics"]
    assert psnr["value"] == 4.0 and psnr["n"] == 2 and psnr["ci95"] == [
        card.metrics[0].ci95.low, card.metrics[0].ci95.high]
    assert lpips["value"] is None and lpips["ci95"] is None and not lpips["available"]
    assert data["notes"] == ["a note"] and data["model_name"] == "m"
    text = summary.format_markdown(card)
    ci = card.metrics[0].ci95
    assert f"| PSNR | 4.0000 | [{ci.low:.4f}, {ci.high:.4f}] | 2 |" in text
    assert "unavailable: no \\| weights |" in text  # a pipe in a reason stays in its cell
    assert "- note: a note" in text


def test_equal_blockers_are_one_line_naming_their_metrics():
    card = scorecard_pb2.Scorecard(benchmark_id="b", model_name="m")
    parity = "sift: parity with the official implementation not verified"
    for metric in ("c3d_a", "c3d_b", "c3d_a"):
        card.verification.blocking.add(reason=scorecard_pb2.UNVERIFIED_PARITY,
                                       detail=parity, metric_id=metric)
    card.verification.blocking.add(reason=scorecard_pb2.UNVERIFIED_PARITY, detail="other",
                                   metric_id="fid")
    card.verification.blocking.add(reason=scorecard_pb2.NOT_OFFICIAL_DATA, detail="toy")
    groups = blockers.grouped(card.verification.blocking)
    assert [(g.reason, g.metric_ids) for g in groups] == [
        ("UNVERIFIED_PARITY", ("c3d_a", "c3d_b")), ("UNVERIFIED_PARITY", ("fid",)),
        ("NOT_OFFICIAL_DATA", ())]
    table = summary.format_summary(card)
    assert table.count(parity) == 1
    assert f"UNVERIFIED_PARITY (2 metrics: c3d_a, c3d_b): {parity}" in table
    assert "UNVERIFIED_PARITY: other" in table and "NOT_OFFICIAL_DATA: toy" in table
    markdown = summary.format_markdown(card)
    assert markdown.count(parity) == 1
    assert "- not leaderboard-eligible: UNVERIFIED_PARITY (fid): other" in markdown
    assert len(json.loads(summary.format_json(card))["blocking"]) == 5  # the JSON keeps all


def test_skewed_values_get_a_seeded_bootstrap_interval_and_say_so():
    rng = np.random.default_rng(7)
    skewed = [float(v) for v in rng.lognormal(0.0, 1.2, size=40)]
    result = card_lib.aggregate(SPEC, [_s(str(i), PSNR=v) for i, v in enumerate(skewed)],
                                BACKEND)
    x = np.asarray(skewed)
    g1 = ((x - x.mean()) ** 3).mean() / ((x - x.mean()) ** 2).mean() ** 1.5
    assert g1 > intervals.SKEW_LIMIT
    idx = np.random.default_rng(intervals.SEED).integers(0, 40, (intervals.RESAMPLES, 40))
    low, high = np.percentile(x[idx].mean(axis=1), [2.5, 97.5])
    assert (result.ci95.low, result.ci95.high) == pytest.approx((low, high), abs=1e-12)
    assert result.ci95_method.startswith("percentile bootstrap of the mean, 2000 resamples")
    assert f"g1 = {g1:.2f}" in result.ci95_method
    # Asymmetric about the mean, unlike the normal interval.
    assert high - result.value > result.value - low
    text = summary.format_markdown(scorecard_pb2.Scorecard(metrics=[result]))
    assert "(bootstrap)" in text
    assert json.loads(summary.format_json(scorecard_pb2.Scorecard(metrics=[result])))[
        "metrics"][0]["ci95_method"] == result.ci95_method


def test_symmetric_or_few_values_keep_the_normal_interval():
    symmetric = [float(v) for v in np.linspace(0.0, 1.0, 40)]
    few_skewed = [0.0] * 8 + [10.0]  # g1 = 2.5, but under MIN_BOOTSTRAP_N values
    for values in (symmetric, few_skewed):
        result = card_lib.aggregate(SPEC, [_s(str(i), PSNR=v) for i, v in enumerate(values)],
                                    BACKEND)
        mean = sum(values) / len(values)
        half = 1.96 * math.sqrt(sum((v - mean) ** 2 for v in values)
                                / (len(values) - 1) / len(values))
        assert (result.ci95.low, result.ci95.high) == pytest.approx((mean - half, mean + half))
        assert result.ci95_method.startswith("normal approximation")
    single = card_lib.aggregate(SPEC, [_s("a", PSNR=1.0)], BACKEND)
    assert not single.HasField("ci95") and single.ci95_method == ""
