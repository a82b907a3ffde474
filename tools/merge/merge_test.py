"""Shards and `worldeval merge`: two shards of the VMBench bundled sample merged give a
single run's outputs (timings aside); shards of different runs are refused, by name."""

import json
import pathlib
import sys

import pytest
from absl import flags

from benchmarks.common import shards
from benchmarks.common.errors import InputError
from benchmarks.common.flags import CommonConfig
from benchmarks.vmbench import run as vmbench_run
from benchmarks.vmbench import runner as vmbench_runner
from proto import scorecard_pb2
from tools.merge import merge_lib

FLAGS = flags.FLAGS
# Weight-free: the Lucas-Kanade PAS on the three bundled clips.
ARGS = ["--metrics=pas", "--pas_backend=lk", "--device=cpu", "--offline"]


def _run(monkeypatch, args):
    argv = ["run", *args]
    monkeypatch.setattr(sys, "argv", argv)
    FLAGS.unparse_flags()
    FLAGS(argv)
    try:
        return vmbench_runner.run(vmbench_run._config())
    finally:
        FLAGS.unparse_flags()


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    root = tmp_path_factory.mktemp("shards")
    cards = {"single": _run(mp, ARGS + [f"--output_dir={root / 'single'}"])}
    for i in range(2):
        cards[i] = _run(mp, ARGS + [f"--output_dir={root / str(i)}", "--num_shards=2",
                                    f"--shard_index={i}"])
    args = merge_lib.prepare([str(root / "0"), str(root / "1")], str(root / "merged"),
                             "vmbench")
    cards["merged"] = _run(mp, args)
    mp.undo()
    return root, cards


def _untimed(line: str) -> dict:
    row = json.loads(line)
    row.pop("seconds", None)
    row["diagnostics"] = {k: v for k, v in row.get("diagnostics", {}).items()
                          if not k.startswith("seconds:")}
    return row


def _card(card: scorecard_pb2.Scorecard, out: pathlib.Path) -> str:
    card = scorecard_pb2.Scorecard.FromString(card.SerializeToString())
    card.ClearField("run")
    del card.notes[:]
    for metric in card.metrics:
        metric.ClearField("seconds")
    return str(card).replace(str(out), "OUT")


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


def _ids(out: pathlib.Path):
    lines = (out / "per_sample_scores.jsonl").read_text().splitlines()
    return [json.loads(line)["sample_id"] for line in lines]


def _errors(out: pathlib.Path):
    lines = (out / "per_sample_scores.jsonl").read_text().splitlines()
    return {row["sample_id"]: row.get("error", "") for row in map(json.loads, lines)}


def test_shards_split_the_samples(runs):
    root, cards = runs
    ids = [_ids(root / str(i)) for i in range(2)]
    assert ids[0] and ids[1] and not set(ids[0]) & set(ids[1])
    assert sorted(ids[0] + ids[1]) == sorted(_ids(root / "single"))
    for i in range(2):
        assert not cards[i].verification.leaderboard_eligible
        assert any(f"shard {i} of 2" in b.detail for b in cards[i].verification.blocking)


def test_merged_outputs_equal_a_single_run(runs):
    root, cards = runs
    single, merged = root / "single", root / "merged"
    names = sorted(p.name for p in single.iterdir() if p.is_file())
    assert names == sorted(p.name for p in merged.iterdir() if p.is_file())
    for name in names:
        a, b = (d / name for d in (single, merged))
        if name.endswith(".jsonl"):
            assert ([_untimed(x) for x in a.read_text().splitlines()]
                    == [_untimed(x) for x in b.read_text().splitlines()]), name
        elif name != "scorecard.json":
            assert a.read_text().replace(str(single), "OUT") == \
                b.read_text().replace(str(merged), "OUT"), name
    assert _card(cards["single"], single) == _card(cards["merged"], merged)


def test_merge_refuses_what_is_not_one_split_run(runs, tmp_path, monkeypatch):
    root, _ = runs
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
    _run(monkeypatch, ARGS + [f"--output_dir={other}", "--num_shards=2", "--shard_index=1",
                              "--grid_size=7"])
    with pytest.raises(merge_lib.MergeError, match="different flags"):
        merge_lib.prepare([shard0, str(other)], str(tmp_path / "d"), "vmbench")


def test_a_missing_shard_names_the_samples_it_held(runs, tmp_path, monkeypatch):
    root, cards = runs
    args = merge_lib.prepare([str(root / "0")], str(tmp_path / "m"), "vmbench",
                             allow_missing=True)
    card = _run(monkeypatch, args)
    uncovered = set(_ids(root / "1"))
    assert set(card.coverage.failed_sample_ids) == uncovered
    for sample_id, error in _errors(tmp_path / "m").items():
        assert ("no shard" in error) == (sample_id in uncovered)


def test_runner_args_drop_the_per_shard_flags():
    card = scorecard_pb2.Scorecard()
    card.run.command = ("run --metrics=pas --num_shards 2 --shard_index=1 --resume "
                        "--output_dir '/a b' --noresume --grid_size=7")
    args = merge_lib.runner_args(merge_lib.Shard(pathlib.Path("x"), card), pathlib.Path("/o"))
    assert args == ["--metrics=pas", "--grid_size=7", "--output_dir=/o", "--stored_only"]
