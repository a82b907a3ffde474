"""Trust facts per backend and per-metric coverage block eligibility, each on its own."""

from benchmarks.common import scorecard as card_lib
from benchmarks.common import trust
from proto import scorecard_pb2

SPEC = card_lib.MetricSpec("M", "M", "0-1", True, True)


def _trusted(**changes):
    backend = scorecard_pb2.Backend(name="b", official=True, digest_pinned=True,
                                    parity=trust.verified("//x:calibration_test", "real weights"))
    for key, value in changes.items():
        if key == "parity":
            backend.parity.CopyFrom(value)
        else:
            setattr(backend, key, value)
    return backend


def _samples(values, reasons=None):
    samples = []
    for i, value in enumerate(values):
        s = scorecard_pb2.SampleScore(sample_id=f"c{i}", split="x")
        if value is None:
            s.unavailable["M"] = (reasons or {}).get(i, "family failed: boom")
        else:
            s.metrics["M"] = value
        samples.append(s)
    return samples


def _reasons(metrics):
    return [(b.reason, b.metric_id) for b in trust.backend_blockers(metrics)
            + trust.metric_coverage_blockers(metrics)]


def test_a_fully_trusted_complete_metric_has_no_blocker():
    assert _reasons([card_lib.aggregate(SPEC, _samples([1.0, 2.0]), _trusted())]) == []


def test_each_missing_trust_fact_is_its_own_blocker():
    cases = {scorecard_pb2.NON_OFFICIAL_BACKEND: _trusted(official=False),
             scorecard_pb2.UNVERIFIED_PARITY: _trusted(parity=trust.not_verified("tiny")),
             scorecard_pb2.UNPINNED_CHECKPOINT: _trusted(digest_pinned=False)}
    for reason, backend in cases.items():
        metric = card_lib.aggregate(SPEC, _samples([1.0]), backend)
        assert _reasons([metric]) == [(reason, "M")], reason


def test_an_unavailable_metric_needs_no_trust():
    metric = card_lib.unavailable(SPEC, "no weights", _trusted(official=False))
    assert _reasons([metric]) == []


def test_a_metric_missing_on_one_clip_names_metric_count_and_clip():
    metric = card_lib.aggregate(SPEC, _samples([1.0, None, 3.0]), _trusted())
    assert metric.sample_count == 2 and metric.expected_sample_count == 3
    assert list(metric.missing_sample_ids) == ["x/c1"]
    (blocker,) = trust.metric_coverage_blockers([metric])
    assert blocker.reason == scorecard_pb2.INCOMPLETE_METRIC_COVERAGE
    assert blocker.metric_id == "M"
    assert blocker.detail == ("M: computed on 2 of 3 samples; missing on 1: x/c1 "
                              "(first reason: family failed: boom)")


def test_a_gap_the_official_code_has_too_is_listed_but_does_not_block():
    metric = card_lib.aggregate(
        SPEC, _samples([1.0, None], {1: card_lib.OFFICIAL_GAP + "no prompt"}), _trusted())
    assert list(metric.missing_sample_ids) == ["x/c1"]
    assert trust.metric_coverage_blockers([metric]) == []


def test_failed_samples_are_not_expected_to_carry_the_metric():
    samples = _samples([1.0, 2.0]) + [scorecard_pb2.SampleScore(sample_id="bad", error="x")]
    metric = card_lib.aggregate(SPEC, samples, _trusted())
    assert metric.expected_sample_count == 2 and not metric.missing_sample_ids


def test_digests_are_stamped_from_the_checkpoints():
    pinned = scorecard_pb2.CheckpointRef(id="a", pinned_digest_matched=True)
    loose = scorecard_pb2.CheckpointRef(id="b", pinned_digest_matched=False)
    backend = scorecard_pb2.Backend(name="b")
    assert trust.with_digests(backend, []).digest_pinned  # weight-free
    assert trust.with_digests(backend, [pinned]).digest_pinned
    assert not trust.with_digests(backend, [pinned, loose]).digest_pinned
    assert not backend.digest_pinned  # a copy was stamped


def test_verified_parity_needs_evidence():
    try:
        trust.verified("", "scope")
    except ValueError:
        return
    raise AssertionError("verified() accepted no evidence")


def test_internal_errors_block():
    cov = scorecard_pb2.Coverage(internal_error_sample_ids=["x/c1"])
    (blocker,) = trust.internal_error_blockers(cov)
    assert blocker.reason == scorecard_pb2.INTERNAL_ERRORS and "x/c1" in blocker.detail
