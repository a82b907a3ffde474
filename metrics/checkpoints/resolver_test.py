"""Checkpoint resolution: every source in order, digests, and failures that say how to fetch.

No test reaches the network: downloads are only attempted where `offline` is False and
a local source exists first.
"""

import dataclasses
import hashlib

import pytest

from metrics.checkpoints import resolver

FILE_SPEC = resolver.CheckpointSpec(
    name="raft_large", filename="raft_large_C_T_SKHT_V2-ff5fadd5.pth",
    url="https://download.pytorch.org/models/raft_large_C_T_SKHT_V2-ff5fadd5.pth")
HF_SPEC = resolver.CheckpointSpec(
    name="dinov2_base", filename="model.safetensors", hf_repo="facebook/dinov2-base",
    hf_revision="main", snapshot=True)


@pytest.fixture(autouse=True)
def _isolated_caches(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch_home"))
    import huggingface_hub.constants  # pylint: disable=import-outside-toplevel
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hf"))


def _write(path, data=b"weights"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_explicit_path_wins_and_is_digested(tmp_path):
    weight = _write(tmp_path / "mine.pth", b"abc")
    _write(tmp_path / "dir" / FILE_SPEC.filename, b"other")
    got = resolver.resolve(FILE_SPEC, explicit_path=str(weight), checkpoint_dir=str(tmp_path / "dir"))
    assert (got.path, got.source) == (weight, "flag")
    assert got.sha256 == hashlib.sha256(b"abc").hexdigest()


def test_explicit_path_missing_says_how_to_fetch(tmp_path):
    with pytest.raises(resolver.CheckpointUnavailable, match="curl -L .*raft_large_C_T_SKHT"):
        resolver.resolve(FILE_SPEC, explicit_path=str(tmp_path / "nope.pth"))


@pytest.mark.parametrize("relative", ["raft_large_C_T_SKHT_V2-ff5fadd5.pth",
                                      "raft_large/raft_large_C_T_SKHT_V2-ff5fadd5.pth"])
def test_checkpoint_dir(tmp_path, relative):
    weight = _write(tmp_path / "ckpt" / relative)
    got = resolver.resolve(FILE_SPEC, checkpoint_dir=str(tmp_path / "ckpt"), offline=True)
    assert (got.path, got.source) == (weight, "checkpoint_dir")


def test_torch_hub_cache(tmp_path):
    weight = _write(tmp_path / "torch_home" / "hub" / "checkpoints" / FILE_SPEC.filename)
    got = resolver.resolve(FILE_SPEC, offline=True)
    assert (got.path, got.source) == (weight, "torch_cache")


def test_hf_cache_snapshot_records_the_commit(tmp_path):
    repo = tmp_path / "hf" / "models--facebook--dinov2-base"
    commit = "0123456789abcdef0123456789abcdef01234567"
    _write(repo / "refs" / "main", commit.encode())
    _write(repo / "snapshots" / commit / "model.safetensors", b"w")
    _write(repo / "snapshots" / commit / "config.json", b"{}")
    got = resolver.resolve(HF_SPEC, offline=True)
    assert got.source == "hf_cache" and got.revision == commit
    assert got.path == repo / "snapshots" / commit  # a snapshot resolves to its folder


def test_offline_and_missing_is_unavailable_with_the_command(tmp_path):
    with pytest.raises(resolver.CheckpointUnavailable) as err:
        resolver.resolve(HF_SPEC, checkpoint_dir=str(tmp_path / "c"), offline=True)
    message = str(err.value)
    assert "--offline" in message
    assert f"huggingface-cli download facebook/dinov2-base --revision main --local-dir {tmp_path / 'c'}/dinov2_base" in message


def test_digest_mismatch_is_refused(tmp_path):
    _write(tmp_path / FILE_SPEC.filename, b"not the real weights")
    spec = dataclasses.replace(FILE_SPEC, sha256="ff5fadd5")
    with pytest.raises(resolver.CheckpointUnavailable, match="expected sha256 ff5fadd5"):
        resolver.resolve(spec, checkpoint_dir=str(tmp_path), offline=True)


def test_digest_prefix_match_is_accepted(tmp_path):
    data = b"pinned"
    _write(tmp_path / FILE_SPEC.filename, data)
    spec = dataclasses.replace(FILE_SPEC, sha256=hashlib.sha256(data).hexdigest()[:8])
    assert resolver.resolve(spec, checkpoint_dir=str(tmp_path), offline=True).source == "checkpoint_dir"
