"""--output_dir and --device are checked before any work: exit 2 with the path. The
writers leave a file whole or as it was (a full disk: full_disk.py), and the scorecard
records the sha256 of the per-sample stores beside it."""

import errno
import hashlib
import pathlib

import pytest

from benchmarks.common import flags as common_flags
from benchmarks.common import full_disk
from benchmarks.common import outputs
from benchmarks.common.errors import InputError
from proto import schema
from proto import scorecard_pb2


def test_an_existing_file_is_refused(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(InputError) as raised:
        outputs.check_output_dir(tmp_path / "f")
    assert str(raised.value) == (f"{tmp_path / 'f'}: expected a directory for the run's "
                                 "outputs (existing, or one that can be created), found a file")


def test_a_path_under_a_file_names_the_file(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(InputError) as raised:
        outputs.check_output_dir(tmp_path / "f" / "out")
    assert f"found {tmp_path / 'f'} is a file" in str(raised.value)


def test_an_unwritable_place_is_refused():
    with pytest.raises(InputError) as raised:
        outputs.check_output_dir("/proc/worldeval-out")
    assert str(raised.value).startswith("/proc/worldeval-out: expected a writable directory")


def test_a_new_directory_is_created(tmp_path):
    assert outputs.check_output_dir(tmp_path / "a" / "b").is_dir()


@pytest.mark.parametrize("device", ["auto", "cpu", "cuda", "cuda:1", "mps"])
def test_devices(device):
    assert common_flags.check_device(device) == device


@pytest.mark.parametrize("device", ["gpu", "cuda1", "", "CPU"])
def test_bad_devices(device):
    with pytest.raises(InputError) as raised:
        common_flags.check_device(device)
    assert str(raised.value).startswith("--device: expected auto, cpu, cuda, cuda:N or mps")


def _rows(*ids):
    return [scorecard_pb2.SampleScore(sample_id=i, split="x", metrics={"m": 1.0}) for i in ids]


def test_a_full_disk_keeps_the_old_file_names_it_and_leaves_no_tmp(tmp_path):
    out = outputs.RunOutputs(tmp_path)
    path = out.write_per_sample(_rows("a", "b"))
    before = path.read_bytes()
    for write in (lambda: out.write_per_sample(_rows("a", "b", "c")),
                  lambda: out.write_raw_table(_rows("a"), ["m"]),
                  lambda: out.write_scorecard(scorecard_pb2.Scorecard(benchmark_id="b"))):
        with pytest.MonkeyPatch.context() as mp:
            full_disk.install(mp, fail_at=1)
            with pytest.raises(OSError) as raised:
                write()
        assert raised.value.errno == errno.ENOSPC
        assert pathlib.Path(raised.value.filename).parent == tmp_path
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [outputs.PER_SAMPLE]


def test_the_scorecard_records_the_sha256_of_every_jsonl_beside_it(tmp_path):
    out = outputs.RunOutputs(tmp_path)
    out.write_per_sample(_rows("a", "b"))
    out.write_raw_table(_rows("a", "b"), ["m"])
    (tmp_path / "step1_per_sample_scores.jsonl").write_text("{}\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "deeper.jsonl").write_text("{}\n")  # not beside it
    card = scorecard_pb2.Scorecard(benchmark_id="b")
    out.write_scorecard(card)
    want = {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in tmp_path.glob("*.jsonl")}
    assert sorted(want) == [outputs.PER_SAMPLE, outputs.RAW_TABLE,
                            "step1_per_sample_scores.jsonl"]
    assert dict(card.output_sha256) == want
    written = schema.read_json(tmp_path / outputs.SCORECARD, scorecard_pb2.Scorecard)
    assert dict(written.output_sha256) == want
    assert written.schema_version == schema.SCORECARD_SCHEMA
