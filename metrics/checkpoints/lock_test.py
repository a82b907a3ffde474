"""Checkpoint locks through the resolver: where a lock applies, what a locked, a pinned
and an unlocked file resolve to, and the error a changed file gets."""

import dataclasses
import hashlib

import pytest

from metrics.checkpoints import lock
from metrics.checkpoints import resolver
from proto import manifest_pb2
from proto import schema

COMMIT = "0123456789abcdef0123456789abcdef01234567"
FILE_SPEC = resolver.CheckpointSpec(name="head", filename="head.pth",
                                    url="https://example.invalid/head.pth")
HUB_SPEC = resolver.CheckpointSpec(name="tiny", filename="model.safetensors",
                                   hf_repo="org/tiny", hf_revision=COMMIT, snapshot=True)


@pytest.fixture(autouse=True)
def _isolated_caches(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch_home"))
    import huggingface_hub.constants  # pylint: disable=import-outside-toplevel
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hf"))


def _write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_an_unlocked_file_resolves_without_a_pin(tmp_path):
    _write(tmp_path / "ckpt" / "head" / "head.pth", b"w1")
    got = resolver.resolve(FILE_SPEC, checkpoint_dir=str(tmp_path / "ckpt"), offline=True)
    assert (got.pin, got.lock_file) == ("", str(tmp_path / "ckpt" / lock.LOCK_NAME))
    assert not (tmp_path / "ckpt" / lock.LOCK_NAME).exists()  # finding a file locks nothing


def test_a_locked_file_resolves_with_the_lock_and_its_commit(tmp_path):
    ckpt = tmp_path / "ckpt"
    _write(ckpt / "tiny" / "model.safetensors", b"weights")
    entry = lock.record(ckpt, HUB_SPEC, COMMIT, _sha(b"weights"), 7, lock.VERIFIED_BY_HUB)
    got = resolver.resolve(HUB_SPEC, checkpoint_dir=str(ckpt), offline=True)
    assert (got.pin, got.lock_file, got.revision) == ("lock", str(ckpt / lock.LOCK_NAME), COMMIT)
    saved = schema.read_json(ckpt / lock.LOCK_NAME, manifest_pb2.CheckpointLock)
    assert saved.schema_version == schema.CHECKPOINT_LOCK_SCHEMA
    assert list(saved.entries) == [entry]
    assert (entry.name, entry.id, entry.file, entry.size_bytes, entry.verified_by) == (
        "tiny", "org/tiny", "model.safetensors", 7, "hub")
    assert entry.locked_at.endswith("Z")


def test_a_changed_file_is_a_clear_error_naming_it(tmp_path):
    ckpt = tmp_path / "ckpt"
    weight = _write(ckpt / "tiny" / "model.safetensors", b"weights")
    lock.record(ckpt, HUB_SPEC, COMMIT, _sha(b"weights"), 7, lock.VERIFIED_BY_HUB)
    weight.write_bytes(b"a new upload")
    with pytest.raises(resolver.CheckpointUnavailable) as err:
        resolver.resolve(HUB_SPEC, checkpoint_dir=str(ckpt), offline=True)
    message = str(err.value)
    assert message.startswith(f"{weight}: sha256 {_sha(b'a new upload')}")
    assert f"the checkpoint lock {ckpt / lock.LOCK_NAME} recorded {_sha(b'weights')}" in message
    assert f"org/tiny@{COMMIT}" in message
    assert "delete the entry of tiny/model.safetensors" in message
    assert "huggingface-cli download org/tiny" in message


def test_a_pinned_spec_never_reads_the_lock(tmp_path):
    ckpt = tmp_path / "ckpt"
    _write(ckpt / "head" / "head.pth", b"w1")
    (ckpt / lock.LOCK_NAME).write_text("not json")
    pinned = dataclasses.replace(FILE_SPEC, sha256=_sha(b"w1"))
    got = resolver.resolve(pinned, checkpoint_dir=str(ckpt), offline=True)
    assert (got.pin, got.lock_file) == ("sha256", "")


def test_an_unreadable_lock_says_which_file_and_what_to_do(tmp_path):
    ckpt = tmp_path / "ckpt"
    _write(ckpt / "head" / "head.pth", b"w1")
    (ckpt / lock.LOCK_NAME).write_text("{not json")
    with pytest.raises(resolver.CheckpointUnavailable,
                       match=f"{ckpt / lock.LOCK_NAME}: not a readable checkpoint lock"):
        resolver.resolve(FILE_SPEC, checkpoint_dir=str(ckpt), offline=True)


def test_an_explicit_path_is_not_looked_up(tmp_path):
    ckpt = tmp_path / "ckpt"
    weight = _write(ckpt / "head" / "head.pth", b"w1")
    lock.record(ckpt, FILE_SPEC, "", _sha(b"other"), 5, lock.VERIFIED_BY_NONE)
    got = resolver.resolve(FILE_SPEC, explicit_path=str(weight), checkpoint_dir=str(ckpt))
    assert (got.source, got.pin, got.lock_file) == ("flag", "", "")


def test_the_hub_cache_has_its_own_lock(tmp_path):
    repo = tmp_path / "hf" / "models--org--tiny"
    _write(repo / "refs" / "main", COMMIT.encode())
    _write(repo / "snapshots" / COMMIT / "model.safetensors", b"cached")
    lock.record(tmp_path / "hf", HUB_SPEC, COMMIT, _sha(b"cached"), 6, lock.VERIFIED_BY_HUB)
    got = resolver.resolve(HUB_SPEC, offline=True)
    assert (got.source, got.pin, got.lock_file) == (
        "hf_cache", "lock", str(tmp_path / "hf" / lock.LOCK_NAME))


def test_an_entry_is_never_replaced(tmp_path):
    first = lock.record(tmp_path, FILE_SPEC, "", _sha(b"a"), 1, lock.VERIFIED_BY_NONE)
    assert lock.record(tmp_path, FILE_SPEC, "", _sha(b"a"), 1, lock.VERIFIED_BY_NONE) == first
    with pytest.raises(lock.LockError, match=f"recorded {_sha(b'a')}"):
        lock.record(tmp_path, FILE_SPEC, "", _sha(b"b"), 1, lock.VERIFIED_BY_NONE)
    other = resolver.CheckpointSpec(name="other", filename="o.pth", url="https://x.invalid/o")
    lock.record(tmp_path, other, "", _sha(b"o"), 1, lock.VERIFIED_BY_NONE)
    names = [e.name for e in lock.read(tmp_path).entries]
    assert names == ["head", "other"]
    assert [p.name for p in tmp_path.iterdir()] == [lock.LOCK_NAME]  # no temporary left


@pytest.mark.parametrize("source,expected", [
    ("checkpoint_dir", "ckpt"), ("hf_cache", "hf"), ("torch_cache", "torch_home/hub/checkpoints"),
    ("flag", None)])
def test_the_lock_lives_beside_the_files(tmp_path, source, expected):
    folder = lock.folder_for(source, FILE_SPEC, str(tmp_path / "ckpt"))
    assert folder == (tmp_path / expected if expected else None)
