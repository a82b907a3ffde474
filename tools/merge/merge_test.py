"""Shards and `worldeval merge`: two shards of the VMBench bundled sample merged give a
single run's outputs, results.json included (timings aside; merge_check.py); shards of
different runs are refused, by name, and so is a shard whose store changed after its run
(the sha256 its scorecard records). The other benchmarks' cases: <benchmark>_merge_test."""

import json
import pathlib
import shutil

import pytest

from benchmarks.common import sample_store
from benchmarks.common import shards
from benchmarks.common.errors import InputError
from benchmarks.common.flags import CommonConfig
from benchmarks.vmbench import run as vmbench_run
from benchmarks.vmbench import runner as vmbench_runner
from proto import scorecard_pb2
from tools.merge import merge_check
from tools.merge import merge_lib

# Weight-free: the Lucas-Kanade PAS on the three bundled clips.
CASE = merge_check.Case("vmbench", vmbench_run, vmbench_runner,
                        ["--metrics=pas", "--pas_backend=lk", "--device=cpu", "--offline"])
runs = merge_check.runs_fixture(CASE)


def test_partition_is_by_name_and_covers_every_sample_once():
    common = [CommonConfig(num_shards=3, shard_index=i) for i in range(3)]
    ids = [("", f"{i:04d}") for i in range(1, 200)]
    parts = [shards.select(ids, lambda k: k, c) for c in common]
    assert sorted(sum(parts, [])) == ids and all(parts)
    # Adding samples moves none: each shard of the larger suite holds the smaller one's.
    more = ids + [("", f"{i:04d}") for i in range(200, 300)]
    for c, part in zip(common, parts):
        assert [k for k in shards.select(more, lambda k: k, c) if k in ids] == part
    # Pinned (sha256 of "/0001" ... mod 3): a change of the rule re-shards every run.
    assert [shards.shard_of("", f"{i:04d}", 3) for i in range(1, 10)] == [0, 2, 0, 0, 1, 1,
                                                                          2, 2, 2]


def test_bad_shard_flags_are_input_errors():
    with pytest.raises(InputError, match="--shard_index"):
        shards.check(2, 2)
    with pytest.raises(InputError, match="--num_shards"):
        shards.check(0, 0)


def _errors(out: pathlib.Path):
    lines = (out / "per_sample_scores.jsonl").read_text().splitlines()
    return {row["sample_id"]: row.get("error", "") for row in map(json.loads, lines)}


def test_shards_split_the_samples(runs):
    merge_check.assert_shards_split(runs)


def test_merged_outputs_equal_a_single_run(runs):
    names = merge_check.assert_merged_equals_single(runs)
    assert "results.json" in names, names


def test_merge_refuses_what_is_not_one_split_run(runs, tmp_path):
    root = runs.root
    shard0, shard1 = str(root / "0"), str(root / "1")
    with pytest.raises(merge_lib.MergeError, match=r"shards \[1\] of 2 are missing"):
        merge_lib.prepare([shard0], str(tmp_path / "a"), "vmbench")
    with pytest.raises(merge_lib.MergeError, match="given twice"):
        merge_lib.prepare([shard0, shard0], str(tmp_path / "b"), "vmbench")
    with pytest.raises(merge_lib.MergeError, match="not memobench"):
        merge_lib.prepare([shard0, shard1], str(tmp_path / "c"), "memobench")
    with pytest.raises(merge_lib.MergeError, match="not empty"):
        merge_lib.prepare([shard0, shard1], str(root / "single"), "vmbench")
    other = tmp_path / "other"
    merge_check.run_flags(CASE, [*CASE.args, f"--output_dir={other}", "--num_shards=2",
                                 "--shard_index=1", "--grid_size=7"])
    with pytest.raises(merge_lib.MergeError, match="different flags"):
        merge_lib.prepare([shard0, str(other)], str(tmp_path / "d"), "vmbench")


def test_a_missing_shard_names_the_samples_it_held(runs, tmp_path):
    root = runs.root
    args = merge_lib.prepare([str(root / "0")], str(tmp_path / "m"), "vmbench",
                             allow_missing=True)
    card = merge_check.run_flags(CASE, args)
    uncovered = {sample_id for _, sample_id in merge_check.sample_keys(root / "1")}
    assert set(card.coverage.failed_sample_ids) == uncovered
    for sample_id, error in _errors(tmp_path / "m").items():
        assert ("no shard" in error) == (sample_id in uncovered)


def test_runner_args_drop_the_per_shard_flags():
    card = scorecard_pb2.Scorecard()
    card.run.command = ("run --metrics=pas --num_shards 2 --shard_index=1 --resume "
                        "--output_dir '/a b' --noresume --grid_size=7")
    args = merge_lib.runner_args(merge_lib.Shard(pathlib.Path("x"), card), pathlib.Path("/o"))
    assert args == ["--metrics=pas", "--grid_size=7", "--output_dir=/o", "--stored_only"]


def test_combine_stores_joins_the_shards_attachments(tmp_path):
    shard_list = []
    for index, sid in enumerate(("a", "b")):
        folder = tmp_path / f"s{index}"
        folder.mkdir()
        with sample_store.SampleStore(folder / "per_sample_scores.jsonl", "d", False) as store:
            sample = scorecard_pb2.SampleScore(sample_id=sid, split="x")
            sample.attachments["e.npy"] = sid.encode() * 3
            store.append(sample)
        card = scorecard_pb2.Scorecard()
        card.run.flags.update({"shard_index": str(index), "num_shards": "2"})
        shard_list.append(merge_lib.Shard(folder, card))
    (tmp_path / "m").mkdir()
    assert merge_lib.combine_stores(shard_list, tmp_path / "m") == {
        "per_sample_scores.jsonl": 2}
    merged = tmp_path / "m" / "per_sample_scores.jsonl"
    with sample_store.SampleStore(merged, "d", resume=True) as store:
        assert store.attachment(("x", "a"), "e.npy") == b"aaa"
        assert store.attachment(("x", "b"), "e.npy") == b"bbb"


def _copy_shards(runs, root: pathlib.Path):
    for i in range(runs.num_shards):
        shutil.copytree(runs.dir(i), root / str(i))
    return [str(root / str(i)) for i in range(runs.num_shards)]


def test_a_store_edited_after_its_run_is_refused_by_name(runs, tmp_path):
    """One PAS value of shard 1 changed after the run: the store's sha256 is not the one
    its scorecard records, and merge names the shard folder and the file."""
    shards = _copy_shards(runs, tmp_path / "shards")
    store = pathlib.Path(shards[1]) / "per_sample_scores.jsonl"
    rows = [json.loads(line) for line in store.read_text().splitlines()]
    rows[0]["metrics"]["perceptible_amplitude_score"] = 0.999
    store.write_text("".join(json.dumps(r, sort_keys=True, separators=(",", ":")) + "\n"
                             for r in rows))
    with pytest.raises(merge_lib.MergeError) as raised:
        merge_lib.prepare(shards, str(tmp_path / "m"), "vmbench")
    message = str(raised.value)
    assert message.startswith(f"shard 1 ({shards[1]}): per_sample_scores.jsonl changed after "
                              "the shard's run wrote it"), message
    assert not (tmp_path / "m").exists()  # refused before anything was written


def test_a_missing_or_unrecorded_store_is_refused(runs, tmp_path):
    shards = _copy_shards(runs, tmp_path / "shards")
    store = pathlib.Path(shards[0]) / "per_sample_scores.jsonl"
    text = store.read_text()
    store.unlink()
    with pytest.raises(merge_lib.MergeError, match=r"shard 0 .*: per_sample_scores.jsonl is "
                                                   "missing"):
        merge_lib.prepare(shards, str(tmp_path / "a"), "vmbench")
    store.write_text(text)
    (pathlib.Path(shards[0]) / "extra_per_sample_scores.jsonl").write_text(text)
    with pytest.raises(merge_lib.MergeError, match="extra_per_sample_scores.jsonl has no "
                                                   "sha256"):
        merge_lib.prepare(shards, str(tmp_path / "b"), "vmbench")
    (pathlib.Path(shards[0]) / "extra_per_sample_scores.jsonl").write_text("not a store\n")
    merge_lib.prepare(shards, str(tmp_path / "c"), "vmbench")  # not a store: not merged


def test_untouched_shards_pass_the_store_check(runs):
    merge_lib.check_stores([merge_lib.read_shard(runs.dir(i)) for i in range(runs.num_shards)])
