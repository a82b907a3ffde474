"""Test support: one benchmark's run, unsplit and split into shards then merged.

`shard_and_merge` runs a benchmark's runner in this process through its absl flags (as
`bazel run //benchmarks/<id>:run` would): once whole, once per shard
(--num_shards/--shard_index), then `merge_lib.prepare` over the shards and the runner on
the arguments it returns (--stored_only). `assert_merged_equals_single` compares every
file the two runs wrote, official files in subfolders included, with timings and the run
directory's own path set aside. Each benchmark's test module holds only its flags.
"""

import dataclasses
import difflib
import json
import pathlib
import sys
import types
from typing import Callable, Dict, List, Optional, Sequence

import pytest
from absl import flags

from benchmarks.common import outputs as outputs_lib
from benchmarks.common import sample_loop
from proto import scorecard_pb2
from tools.merge import merge_lib

FLAGS = flags.FLAGS
SINGLE, MERGED = "single", "merged"
# Notes on how the merged run got its samples: every runner's "resumed: N <samples> reused
# from an earlier run" (here: from the shards' stores). Run history, not results, as the
# run info is; left out of the comparison, as timings are.
RUN_HISTORY_NOTES = ("resumed: ",)


@dataclasses.dataclass(frozen=True)
class Case:
    """A benchmark's runner and the weight-free flags its merge test uses."""

    benchmark: str
    run_module: types.ModuleType     # benchmarks/<id>/run.py: the flags and _config()
    runner_module: types.ModuleType  # benchmarks/<id>/runner.py: run(config)
    args: Sequence[str]
    # Applied to every run's config (single, shards, merged): for a test-only backend that
    # no flag names (e.g. WorldScore's flow callable). Merge itself sees only flags.
    configure: Optional[Callable] = None
    # Writes the case's own inputs under the given folder and returns the flags naming
    # them (None: the runner's bundled sample).
    inputs: Optional[Callable[[pathlib.Path], List[str]]] = None


@dataclasses.dataclass
class Runs:
    root: pathlib.Path
    cards: Dict[object, scorecard_pb2.Scorecard]   # SINGLE, MERGED and shard indices
    num_shards: int

    def dir(self, name) -> pathlib.Path:
        return self.root / str(name)


def run_flags(case: Case, args: Sequence[str]) -> scorecard_pb2.Scorecard:
    """The runner on these command-line arguments (sys.argv too: the scorecard records
    it, and merge reads the shards' command lines back from there)."""
    argv = ["run", *args]
    saved = sys.argv
    sys.argv = argv
    FLAGS.unparse_flags()
    try:
        FLAGS(argv)
        config = case.run_module._config()  # pylint: disable=protected-access
        return case.runner_module.run(case.configure(config) if case.configure else config)
    finally:
        FLAGS.unparse_flags()
        sys.argv = saved


def shard_and_merge(case: Case, root: pathlib.Path, num_shards: int = 2) -> Runs:
    """Runs `case` whole, in `num_shards` shards, and merged; returns the scorecards."""
    runs = Runs(root, {}, num_shards)
    args = list(case.args) + (case.inputs(root / "inputs") if case.inputs else [])
    runs.cards[SINGLE] = run_flags(case, args + [f"--output_dir={runs.dir(SINGLE)}"])
    for i in range(num_shards):
        runs.cards[i] = run_flags(case, args + [f"--output_dir={runs.dir(i)}",
                                                f"--num_shards={num_shards}",
                                                f"--shard_index={i}"])
    merge_args = merge_lib.prepare([str(runs.dir(i)) for i in range(num_shards)],
                                   str(runs.dir(MERGED)), case.benchmark)
    runs.cards[MERGED] = run_flags(case, merge_args)
    return runs


def sample_keys(out: pathlib.Path, name: str = outputs_lib.PER_SAMPLE) -> List[tuple]:
    lines = (out / name).read_text(encoding="utf-8").splitlines()
    return [(row.get("split", ""), row["sample_id"]) for row in map(json.loads, lines)]


def untimed_row(line: str) -> dict:
    """A per-sample JSON line without its measurements (seconds overall and per family,
    peak memory: sample_loop.MEASURED)."""
    row = json.loads(line)
    row.pop("seconds", None)
    row["diagnostics"] = {k: v for k, v in row.get("diagnostics", {}).items()
                          if not k.startswith(sample_loop.MEASURED)}
    return row


def card_text(card: scorecard_pb2.Scorecard, out: pathlib.Path,
              run_notes: Sequence[str] = ()) -> str:
    """The scorecard without run info, seconds, the notes that start with
    RUN_HISTORY_NOTES or `run_notes` (a benchmark's durations, its resume notes) and the
    sha256 of its *.jsonl files (their rows hold timings; assert_digests checks them), with
    `out` written OUT."""
    card = scorecard_pb2.Scorecard.FromString(card.SerializeToString())
    card.ClearField("run")
    card.ClearField("output_sha256")
    kept = [n for n in card.notes if not n.startswith(RUN_HISTORY_NOTES + tuple(run_notes))]
    del card.notes[:]
    card.notes.extend(kept)
    for metric in card.metrics:
        metric.ClearField("seconds")
        metric.ClearField("peak_host_bytes")
        metric.ClearField("peak_device_bytes")
    return str(card).replace(str(out), "OUT")


def output_files(out: pathlib.Path) -> List[str]:
    """Every file under `out`, relative, sorted."""
    return sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())


def assert_shards_split(runs: Runs, store: str = outputs_lib.PER_SAMPLE) -> None:
    """The shards' samples are disjoint, none empty, and together the single run's."""
    keys = [sample_keys(runs.dir(i), store) for i in range(runs.num_shards)]
    assert all(keys), [len(k) for k in keys]
    flat = sum(keys, [])
    assert len(set(flat)) == len(flat)
    assert sorted(flat) == sorted(sample_keys(runs.dir(SINGLE), store))
    # Each shard counts only its own samples as expected (and as missing); together the
    # single run's.
    coverages = [runs.cards[i].coverage for i in range(runs.num_shards)]
    single = runs.cards[SINGLE].coverage
    assert sum(c.expected for c in coverages) == single.expected, [
        c.expected for c in coverages]
    missing = sum((list(c.missing_sample_ids) for c in coverages), [])
    assert sorted(missing) == sorted(single.missing_sample_ids)
    for i in range(runs.num_shards):
        verification = runs.cards[i].verification
        assert not verification.leaderboard_eligible
        assert any(f"shard {i} of {runs.num_shards}" in b.detail
                   for b in verification.blocking), i


def assert_merged_equals_single(runs: Runs, run_notes: Sequence[str] = ()) -> List[str]:
    """Every file of the merged run equals the single run's (timings and the notes
    card_text leaves out aside), and every scorecard records its stores' sha256
    (assert_digests); returns the files compared."""
    assert_digests(runs)
    single, merged = runs.dir(SINGLE), runs.dir(MERGED)
    names = output_files(single)
    assert names == output_files(merged)
    for name in names:
        a, b = single / name, merged / name
        if name == outputs_lib.SCORECARD:
            continue  # compared as protos below
        if name.endswith(".jsonl"):
            assert ([untimed_row(x) for x in a.read_text(encoding="utf-8").splitlines()]
                    == [untimed_row(x) for x in b.read_text(encoding="utf-8").splitlines()]
                    ), name
        else:
            assert (a.read_bytes().replace(str(single).encode(), b"OUT")
                    == b.read_bytes().replace(str(merged).encode(), b"OUT")), name
    one = card_text(runs.cards[SINGLE], single, run_notes)
    other = card_text(runs.cards[MERGED], merged, run_notes)
    assert one == other, "\n".join(difflib.unified_diff(
        one.splitlines(), other.splitlines(), SINGLE, MERGED, lineterm="", n=1))
    return names


def assert_digests(runs: Runs) -> None:
    """Every run's scorecard (single, shards, merged) records the sha256 of each *.jsonl
    file in its output dir, as the file is."""
    for name, card in runs.cards.items():
        out = runs.dir(name)
        assert dict(card.output_sha256) == outputs_lib.jsonl_digests(out), name
        assert outputs_lib.PER_SAMPLE in card.output_sha256, name


def runs_fixture(case: Case, num_shards: int = 2):
    """A module-scoped pytest fixture named `runs`: `shard_and_merge(case)` once."""

    @pytest.fixture(scope="module", name="runs")
    def _runs(tmp_path_factory):
        return shard_and_merge(case, tmp_path_factory.mktemp(case.benchmark), num_shards)

    return _runs
