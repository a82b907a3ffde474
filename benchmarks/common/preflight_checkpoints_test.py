"""Preflight's checkpoint checks: found in --checkpoint_dir, the Hugging Face cache or the
torch cache, with the digest checked, or not ready with where it looked and the fix."""

import hashlib

import pytest
from google.protobuf import text_format

from benchmarks.common import preflight
from proto import runtime_profile_pb2

WEIGHTS = b"tiny weights for the preflight test\n"
WEIGHTS_SHA = hashlib.sha256(WEIGHTS).hexdigest()


def _profile(text: str) -> runtime_profile_pb2.RuntimeProfile:
    return text_format.Parse('benchmark_id: "toybench" environment: UNIFIED\n' + text,
                             runtime_profile_pb2.RuntimeProfile())


def _verdicts(report):
    return {v.metric_id: v for v in report.metrics}


@pytest.fixture(name="isolated_caches")
def _isolated_caches(tmp_path, monkeypatch):
    """No real HF or torch cache can satisfy a checkpoint check."""
    from huggingface_hub import constants  # pylint: disable=import-outside-toplevel
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hf_cache"))
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch_home"))
    return tmp_path


def _checkpoint_profile(sha: str) -> runtime_profile_pb2.RuntimeProfile:
    return _profile(f"""
        metrics {{ metric_id: "Local" checkpoints {{
            name: "tiny" file: "tiny.pth" url: "https://example.invalid/tiny.pth"
            sha256: "{sha}" }} }}
        metrics {{ metric_id: "Hub" checkpoints {{
            id: "org/tiny-model" revision: "main" name: "tiny-model" file: "model.safetensors" snapshot: true
            sha256: "{WEIGHTS_SHA}" }} }}
    """)


def test_checkpoint_found_in_checkpoint_dir_and_hf_cache(isolated_caches):
    ckpt_dir = isolated_caches / "ckpts"
    (ckpt_dir / "tiny").mkdir(parents=True)
    (ckpt_dir / "tiny" / "tiny.pth").write_bytes(WEIGHTS)
    commit = "c0ffee" * 6 + "abcd"
    repo = isolated_caches / "hf_cache" / "models--org--tiny-model"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit)
    (repo / "snapshots" / commit).mkdir(parents=True)
    (repo / "snapshots" / commit / "model.safetensors").write_bytes(WEIGHTS)

    report = preflight.run_preflight(_checkpoint_profile(WEIGHTS_SHA[:8]),
                                     options=preflight.Options(checkpoint_dir=str(ckpt_dir)))
    v = _verdicts(report)
    assert report.ready, report
    assert "(from checkpoint_dir)" in v["Local"].checks[0].detail
    assert "(from hf_cache)" in v["Hub"].checks[0].detail
    assert WEIGHTS_SHA in v["Hub"].checks[0].detail


def test_checkpoint_missing_or_wrong_digest_is_not_ready(isolated_caches):
    ckpt_dir = isolated_caches / "ckpts"
    (ckpt_dir / "tiny").mkdir(parents=True)
    (ckpt_dir / "tiny" / "tiny.pth").write_bytes(WEIGHTS + b"corrupted")
    report = preflight.run_preflight(_checkpoint_profile(WEIGHTS_SHA),
                                     options=preflight.Options(checkpoint_dir=str(ckpt_dir)))
    v = _verdicts(report)
    assert not v["Local"].ready and f"expected sha256 {WEIGHTS_SHA}" in v["Local"].reasons[0]
    assert not v["Hub"].ready
    assert v["Hub"].reasons == ["checkpoint tiny-model (model.safetensors) not found (size ?, "
                                "licence ?)"]
    assert v["Hub"].checks[0].detail == (
        f"looked in {ckpt_dir}/tiny-model/, the Hugging Face cache "
        f"{isolated_caches}/hf_cache (org/tiny-model@main)")
    fix = v["Hub"].checks[0].fix
    assert fix.startswith("./bazelw run //tools:assets -- fetch --benchmark=toybench "
                          f"--metrics=Hub --cache_dir={ckpt_dir}")


def test_url_checkpoint_found_in_torch_cache(isolated_caches):
    hub = isolated_caches / "torch_home" / "hub" / "checkpoints"
    hub.mkdir(parents=True)
    (hub / "tiny.pth").write_bytes(WEIGHTS)
    report = preflight.run_preflight(_checkpoint_profile(WEIGHTS_SHA), ["Local"])
    assert report.ready and "(from torch_cache)" in report.metrics[0].checks[0].detail


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
