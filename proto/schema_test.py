"""Every message of the contract survives a JSON round trip; versions are checked."""

import pytest

from proto import manifest_pb2
from proto import runtime_profile_pb2
from proto import schema
from proto import scorecard_pb2


def _filled_scorecard():
    card = scorecard_pb2.Scorecard(benchmark_id="memobench", model_name="M")
    card.run.started_at = "2026-11-29T09:00:00Z"
    card.run.flags["max_side"] = "640"
    card.provenance.lock_digest = "ab" * 32
    card.provenance.package_versions["numpy"] = "2.4.1"
    card.provenance.checkpoints.add(metric_id="LPIPS", id="alex", revision="r", sha256="00")
    card.verification.scope = scorecard_pb2.BOUNDED
    card.verification.blocking.add(reason=scorecard_pb2.INCOMPLETE_COVERAGE, detail="3 of 360")
    card.coverage.expected = 360
    card.coverage.missing_sample_ids.extend(["a", "b"])
    card.coverage.evaluated_by_split["synthetic"] = 3
    metric = card.metrics.add(id="GT_ALL_PSNR", value=0.0, unit="dB", available=True)
    metric.backend.name = "opencv"
    metric.ci95.low = -1.0
    card.metrics.add(id="GT_ALL_LPIPS", available=False, unavailable_reason="no weights")
    return card


MESSAGES = [
        _filled_scorecard(),
        scorecard_pb2.SampleScore(sample_id="Barnyard_001", split="synthetic",
                                                            metrics={"GT_ALL_PSNR": 21.5}, diagnostics={"h_start": "8"},
                                                            unavailable={"GT_ALL_LPIPS": "no weights"}),
        scorecard_pb2.RawMetricRow(sample_id="x", metric_id="GT_ALL_SSIM", value=0.5),
        manifest_pb2.ArtifactManifest(artifacts=[manifest_pb2.Artifact(
                sample_id="x", kind=manifest_pb2.VIDEO_FILE, num_frames=3, size_bytes=2**40)]),
        manifest_pb2.AssetManifest(assets=[manifest_pb2.Asset(
                id="lpips", kind=manifest_pb2.CHECKPOINT, sha256="ff")]),
        manifest_pb2.CheckpointLock(entries=[manifest_pb2.CheckpointLockEntry(
                name="sam3", id="facebook/sam3", file="model.safetensors", sha256="ab" * 32,
                size_bytes=3 * 2**30, verified_by="hub")]),
        runtime_profile_pb2.RuntimeProfile(
                benchmark_id="memobench", environment=runtime_profile_pb2.UNIFIED_SERVICE,
                metrics=[runtime_profile_pb2.MetricRequirement(
                        metric_id="vqa", env_vars=[runtime_profile_pb2.EnvVarRequirement(
                                name="GEMINI_API_KEY", secret=True)],
                        device=runtime_profile_pb2.CUDA_PREFERRED)]),
]


@pytest.mark.parametrize("msg", MESSAGES, ids=lambda m: type(m).__name__)
def test_json_round_trip(msg):
    stamped = schema.stamp(type(msg)())
    stamped.MergeFrom(msg)
    assert schema.from_json(schema.to_json(stamped), type(msg)) == stamped
    assert schema.from_json(schema.to_json_line(stamped), type(msg)) == stamped


def test_zero_value_is_kept_distinct_from_unavailable():
    card = _filled_scorecard()
    back = schema.from_json(schema.to_json(card), scorecard_pb2.Scorecard)
    assert back.metrics[0].HasField("value") and back.metrics[0].value == 0.0
    assert not back.metrics[1].HasField("value")


def test_enums_are_written_by_name():
    text = schema.to_json(_filled_scorecard())
    assert '"BOUNDED"' in text and '"INCOMPLETE_COVERAGE"' in text


def test_wrong_schema_is_refused():
    text = schema.to_json(schema.stamp(manifest_pb2.AssetManifest()))
    text = text.replace("AssetManifest", "Scorecard")
    with pytest.raises(ValueError, match="schema_version"):
        schema.from_json(text, manifest_pb2.AssetManifest)


def test_unknown_field_is_refused():
    with pytest.raises(Exception, match="no_such_field"):
        schema.from_json('{"no_such_field": 1}', scorecard_pb2.Scorecard)


def test_write_and_read_files(tmp_path):
    card = _filled_scorecard()
    schema.write_json(tmp_path / "scorecard.json", card)
    assert schema.read_json(tmp_path / "scorecard.json", scorecard_pb2.Scorecard).model_name == "M"
    rows = tmp_path / "rows.jsonl"
    rows.write_text(schema.to_json_line(MESSAGES[1]) + '{"sample_id": "torn')
    assert [r.sample_id for r in schema.read_jsonl(rows, scorecard_pb2.SampleScore)] == [
            "Barnyard_001"]
