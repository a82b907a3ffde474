"""The per-sample store keeps every finished sample across an interruption (a kill, a
full disk: full_disk.py simulates one)."""

import errno

import pytest

from benchmarks.common import full_disk
from benchmarks.common import sample_store
from proto import scorecard_pb2


def _sample(sid, value=1.0, error=""):
    return scorecard_pb2.SampleScore(sample_id=sid, split="synthetic",
                                     metrics={"m": value}, error=error)


def test_appends_are_durable_and_resumable(tmp_path):
    path = tmp_path / "per_sample_scores.jsonl"
    with sample_store.SampleStore(path, "d1", resume=False) as store:
        store.append(_sample("a", 1.0))
        store.append(_sample("b", 2.0))
    # A run killed mid-write leaves a torn last line.
    with open(path, "a") as f:
        f.write('{"sample_id": "c", "metr')
    with sample_store.SampleStore(path, "d1", resume=True) as store:
        assert store.resumed == 2
        assert ("synthetic", "a") in store and ("synthetic", "b") in store
        assert ("synthetic", "c") not in store
        assert store.get(("synthetic", "b")).metrics["m"] == 2.0
        store.append(_sample("c", 3.0))
    with sample_store.SampleStore(path, "d1", resume=True) as store:
        assert sorted(s.sample_id for s in store.samples()) == ["a", "b", "c"]


def test_resume_recomputes_failed_and_stale_samples(tmp_path):
    path = tmp_path / "s.jsonl"
    with sample_store.SampleStore(path, "d1", resume=False) as store:
        store.append(_sample("ok"))
        store.append(_sample("bad", error="boom"))
    with sample_store.SampleStore(path, "d1", resume=True) as store:
        assert ("synthetic", "ok") in store and ("synthetic", "bad") not in store
    with sample_store.SampleStore(path, "other-settings", resume=True) as store:
        assert store.resumed == 0 and store.discarded_stale == 1


def test_without_resume_starts_fresh(tmp_path):
    path = tmp_path / "s.jsonl"
    with sample_store.SampleStore(path, "d1", resume=False) as store:
        store.append(_sample("a"))
    with sample_store.SampleStore(path, "d1", resume=False) as store:
        assert ("synthetic", "a") not in store
    assert path.read_text() == ""


def test_config_digest_depends_on_settings():
    assert sample_store.config_digest({"max_side": 640}) == sample_store.config_digest(
        {"max_side": 640})
    assert sample_store.config_digest({"max_side": 640}) != sample_store.config_digest(
        {"max_side": 512})


def test_a_corrupt_middle_line_is_skipped_and_its_sample_recomputed(tmp_path):
    path = tmp_path / "s.jsonl"
    with sample_store.SampleStore(path, "d1", resume=False) as store:
        for sid in ("a", "b", "c"):
            store.append(_sample(sid))
    lines = path.read_text().splitlines(keepends=True)
    lines[1] = '{"sample_id": "b", "metrics": {"m": tru' + "\n"  # disk corruption
    path.write_text("".join(lines))
    with sample_store.SampleStore(path, "d1", resume=True) as store:
        assert store.discarded_corrupt == 1 and store.resumed == 2
        assert ("synthetic", "b") not in store and ("synthetic", "c") in store


def test_the_same_id_in_two_splits_is_two_samples(tmp_path):
    path = tmp_path / "s.jsonl"
    with sample_store.SampleStore(path, "d1", resume=False) as store:
        store.append(scorecard_pb2.SampleScore(sample_id="001", split="synthetic"))
        store.append(scorecard_pb2.SampleScore(sample_id="001", split="real"))
    with sample_store.SampleStore(path, "d1", resume=True) as store:
        assert store.resumed == 2


def test_attachments_are_kept_beside_the_row_and_read_back_checked(tmp_path):
    path = tmp_path / "s.jsonl"
    with sample_store.SampleStore(path, "d1", resume=False) as store:
        sample = _sample("a/1")  # a "/" in an id stays one folder
        sample.attachments["emb.npy"] = b"\x00embedding bytes"
        store.append(sample)
        assert store.attachment(("synthetic", "a/1"), "emb.npy") == b"\x00embedding bytes"
        assert store.attachment(("synthetic", "a/1"), "other.npy") is None
    line = path.read_text()
    assert "attachments" not in line and "AGVtYmVk" not in line  # digest only, no base64
    with sample_store.SampleStore(path, "d1", resume=True) as store:
        (kept,) = store.samples()
        assert kept.diagnostics[sample_store.ATTACHMENT_KEY + "emb.npy"]
        assert sample_store.read_attachment(path, kept, "emb.npy") == b"\x00embedding bytes"
    (stored,) = [p for p in sample_store.attachments_dir(path).rglob("*") if p.is_file()]
    assert stored.parent.parent == sample_store.attachments_dir(path)
    stored.write_bytes(b"\x00embedding bytez")  # corrupted: read as missing
    assert sample_store.read_attachment(path, kept, "emb.npy") is None
    stored.unlink()
    assert sample_store.read_attachment(path, kept, "emb.npy") is None


def test_checkpoint_settings_change_with_a_checkpoints_file_only():
    ref = lambda sha, path="/a": scorecard_pb2.CheckpointRef(metric_id="m", id="org/x",
                                                             revision="r1", sha256=sha, path=path)
    digest = lambda *refs: sample_store.config_digest(
        {"checkpoints": sample_store.checkpoint_settings(refs)})
    assert digest(ref("aa")) == digest(ref("aa", "/elsewhere"))  # moved, same file
    assert digest(ref("aa")) != digest(ref("bb"))
    assert sample_store.checkpoint_settings([ref("")]) == [("m", "org/x@r1")]


def _stored(path):
    return [line for line in path.read_text().splitlines()]


def _fill(path, ids, resume=False):
    with sample_store.SampleStore(path, "d1", resume=resume) as store:
        for sid in ids:
            if ("synthetic", sid) not in store:
                store.append(_sample(sid, float(len(sid))))
        store.put_in_order(("synthetic", sid) for sid in ids)


IDS = ("a", "bb", "ccc", "dddd")


@pytest.mark.parametrize("fail_at", [1, 2, 3, 4, 5, 6])  # 4 appends, then the rewrite
def test_a_full_disk_names_the_store_keeps_its_lines_and_resume_equals_a_clean_run(
        tmp_path, fail_at):
    clean = tmp_path / "clean.jsonl"
    _fill(clean, IDS)
    path = tmp_path / "s.jsonl"
    with pytest.MonkeyPatch.context() as mp:
        disk = full_disk.install(mp, fail_at)
        with pytest.raises(OSError) as raised:
            _fill(path, IDS)
    assert disk.full
    assert raised.value.errno == errno.ENOSPC and raised.value.filename == str(path)
    assert not list(tmp_path.glob("*.tmp"))
    whole = path.read_text().split("\n")[:-1]  # the last: "" or the line the disk cut
    assert whole == _stored(clean)[:len(whole)]  # what was stored is kept, as it was
    assert len(whole) >= min(fail_at - 1, len(IDS))
    _fill(path, IDS, resume=True)
    assert path.read_text() == clean.read_text()


def test_a_full_disk_when_a_store_is_opened_leaves_it_as_it_was(tmp_path):
    path = tmp_path / "s.jsonl"
    _fill(path, IDS)
    before = path.read_bytes()
    with pytest.MonkeyPatch.context() as mp:
        full_disk.install(mp, fail_at=1)
        with pytest.raises(OSError, match="No space left") as raised:
            sample_store.SampleStore(path, "d1", resume=True)  # its rewrite fails
    assert raised.value.filename == str(path)
    assert path.read_bytes() == before and not list(tmp_path.glob("*.tmp"))


def test_a_full_disk_writing_an_attachment_names_it_and_leaves_no_tmp(tmp_path):
    path = tmp_path / "s.jsonl"
    with sample_store.SampleStore(path, "d1", resume=False) as store:
        sample = _sample("a")
        sample.attachments["emb.npy"] = b"\x00" * 64
        with pytest.MonkeyPatch.context() as mp:
            full_disk.install(mp, fail_at=1)
            with pytest.raises(OSError) as raised:
                store.append(sample)
    assert raised.value.errno == errno.ENOSPC
    assert raised.value.filename == str(
        sample_store.attachment_path(path, ("synthetic", "a"), "emb.npy"))
    assert not [p for p in tmp_path.rglob("*") if p.is_file() and p != path]
    assert path.read_text() == ""


def test_atomic_file_keeps_the_old_file_when_the_writer_fails(tmp_path):
    path = tmp_path / "f.json"
    path.write_text("old")
    with pytest.raises(KeyError):
        with sample_store.atomic_file(path) as f:
            f.write("new")
            raise KeyError("a bug in the writer")
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["f.json"]
    with sample_store.atomic_file(path) as f:
        f.write("new")
    assert path.read_text() == "new"
