"""--decode_workers: N loads run ahead on N threads; rows, order and the store do not move.

The loads here synchronize with each other and with `score` through events and barriers
(each with a 10 s timeout that fails the test), never through sleeps or timings.
"""

import threading

import numpy as np
import pytest
from absl import flags as absl_flags
from absl.testing import flagsaver
from google.protobuf import json_format

from benchmarks.common import family as family_lib
from benchmarks.common import flags as common_flags
from benchmarks.common import sample_context
from benchmarks.common import sample_loop
from benchmarks.common.errors import InputError
from benchmarks.common.sample_store import SampleStore
from proto import scorecard_pb2

WAIT = 10.0  # seconds before a missed synchronization fails the test (never reached)


class _Mean(family_lib.Family):
    name = "mean"
    metric_ids = ("Mean",)

    def compute(self, ctx):
        return family_lib.FamilyResult({"Mean": float(ctx.frames.mean())})


def _ref(item):
    return sample_loop.SampleRef(f"s{item:02d}", "x", "scene")


def _frames(item):
    """Sample 3 is unreadable; sample 5's load has a bug; the rest hold their index."""
    if item == 3:
        raise InputError(f"/data/s{item:02d}", "a readable clip", "nothing")
    if item == 5:
        raise KeyError("a bug in load")
    return np.full((2, 4, 4, 3), item, np.uint8)


def _score(item, frames):
    r = _ref(item)
    sample = scorecard_pb2.SampleScore(sample_id=r.sample_id, split=r.split,
                                       input_digest=str(item))
    ctx = sample_context.SampleContext(sample_id=r.sample_id, split=r.split, frames=frames)
    sample.metrics.update(sample_loop.run_families(ctx, [_Mean(None)], sample))
    return sample


def _run(path, items, load, score=_score, workers=1, on_sample=None):
    with SampleStore(path, "settings", False) as store:
        return sample_loop.run(items, _ref, store, load, score, "test", digest=str,
                               on_sample=on_sample, decode_workers=workers)


def _untimed(sample):
    """The row without what a clock measured (seconds, per-family seconds), and an error
    cut to its first line (a bug's traceback names the test's own load functions)."""
    row = scorecard_pb2.SampleScore()
    row.CopyFrom(sample)
    row.ClearField("seconds")
    for key in [k for k in row.diagnostics if k.startswith(sample_loop.MEASURED)]:
        del row.diagnostics[key]
    row.error = row.error.splitlines()[0] if row.error else ""
    return row.SerializeToString(deterministic=True)


def test_rows_and_store_do_not_depend_on_decode_workers(tmp_path):
    items = list(range(9))
    done = {i: threading.Event() for i in items}

    def out_of_order(item):
        """With 3 workers, every third load finishes only after the load two later."""
        try:
            if item % 3 == 0 and item + 2 in done:
                assert done[item + 2].wait(WAIT), f"load {item + 2} never ran beside {item}"
            return _frames(item)
        finally:
            done[item].set()

    one = _run(tmp_path / "1.jsonl", items, _frames, workers=1)
    three = _run(tmp_path / "3.jsonl", items, out_of_order, workers=3)
    assert [_untimed(s) for s in one.samples] == [_untimed(s) for s in three.samples]
    assert [s.sample_id for s in three.samples] == [f"s{i:02d}" for i in items]
    assert three.internal_errors == one.internal_errors == ["x/s05"]
    stored = [[_untimed(json_format.Parse(line, scorecard_pb2.SampleScore()))
               for line in (tmp_path / f"{n}.jsonl").read_text().splitlines()] for n in (1, 3)]
    assert stored[0] == stored[1] and len(stored[0]) == len(items)


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_at_most_n_loads_beside_the_sample_being_scored(tmp_path, workers):
    items = list(range(10))
    lock = threading.Condition()
    state = {"scored": 0, "started": 0, "running": 0}
    ahead, running = [], []
    first = threading.Barrier(workers, timeout=WAIT)

    def load(item):
        with lock:
            ahead.append(item - state["scored"])  # loads started past the last scored one
            state["started"] += 1
            state["running"] += 1
            running.append(state["running"])
            lock.notify_all()
        if item < workers:
            first.wait()  # the first N loads run at the same time, one per thread
        with lock:
            state["running"] -= 1
        return _frames(item) if item not in (3, 5) else np.zeros((2, 4, 4, 3), np.uint8)

    def score(item, frames):
        # The loop must already have started the loads of the next N samples.
        with lock:
            want = min(len(items), item + 1 + workers)
            assert lock.wait_for(lambda: state["started"] >= want, WAIT), (
                f"sample {item}: {state['started']} loads started, expected {want}")
        sample = _score(item, frames)
        with lock:
            state["scored"] += 1
        return sample

    out = _run(tmp_path / "s.jsonl", items, load, score, workers=workers)
    assert [s.error for s in out.samples] == [""] * len(items)
    assert max(ahead) == workers  # sample i+N starts only once sample i-1 is scored
    assert max(running) == workers


def test_a_failing_load_is_its_own_error_row_in_order(tmp_path):
    seen = []
    out = _run(tmp_path / "s.jsonl", list(range(8)), _frames, workers=3,
               on_sample=lambda item, s: seen.append((item, s.sample_id)))
    assert seen == [(i, f"s{i:02d}") for i in range(8)]
    by_id = {s.sample_id: s for s in out.samples}
    assert by_id["s03"].error == "/data/s03: expected a readable clip, found nothing"
    assert not sample_loop.is_internal_error(by_id["s03"])
    assert "KeyError: 'a bug in load'" in by_id["s05"].error
    assert sample_loop.is_internal_error(by_id["s05"])
    assert [s.metrics.get("Mean") for s in out.samples] == [
        None if i in (3, 5) else float(i) for i in range(8)]


@pytest.mark.parametrize("bad", [0, -2, 1.5, True])
def test_decode_workers_below_one_is_an_error_naming_the_flag(tmp_path, bad):
    with pytest.raises(InputError, match="^--decode_workers: expected a whole number"):
        _run(tmp_path / "s.jsonl", [0], _frames, workers=bad)


def test_the_flag_is_validated_read_and_recorded():
    with pytest.raises(absl_flags.IllegalFlagValueError, match="--decode_workers=0"):
        absl_flags.FLAGS["decode_workers"].parse("0")
    if not absl_flags.FLAGS.is_parsed():
        absl_flags.FLAGS.mark_as_parsed()
    with flagsaver.flagsaver(decode_workers=3):
        assert common_flags.common_config().decode_workers == 3
        recorded = common_flags.flag_values_for_record(common_flags.RECORDED)
    assert recorded["decode_workers"] == "3"
    assert common_flags.CommonConfig().decode_workers == 1
