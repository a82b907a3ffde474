"""--executor=processes on a toy step: the local loop's rows, emission in arrival order,
a worker killed mid-sample, resume across executors, a full disk stopping the run.

Workers synchronize through a multiprocessing manager's events (each wait has a 10 s
timeout that fails the test, never reached) and count their calls in marker files: no
sleeps, no timings.
"""

import errno
import json
import multiprocessing
import os
import pathlib
import sys

import cloudpickle
import pytest

from benchmarks.common import errors
from benchmarks.common import executor as executor_lib
from benchmarks.common import process_executor
from benchmarks.common import ray_executor
from benchmarks.common import sample_loop
from benchmarks.common.flags import CommonConfig
from benchmarks.common.sample_store import SampleStore
from proto import scorecard_pb2

WAIT = 10.0  # seconds before a missed synchronization fails the test (never reached)
ITEMS = list(range(8))

# The workers unpickle this module's functions by value: pytest's import name for it need
# not be importable there.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


def _ref(item):
    return sample_loop.SampleRef(f"s{item:02d}", "split", "scene")


def _load(item):
    return item * 10


def _scorer(marks: str = "", die_on: int = -1, die_once: bool = False, gate=None,
            full_on: int = -1):
    """score() that marks each call in `marks` (a folder), kills its process on `die_on`
    (every time, or once), waits on `gate` (item -> event to wait on, event to set) and
    meets a full disk on `full_on`."""
    def score(item, loaded):
        if marks:
            count = len(list(pathlib.Path(marks).glob(f"{item}-*")))
            (pathlib.Path(marks) / f"{item}-{count}").touch()
        if item == die_on and (not die_once or count == 0):
            os._exit(3)  # pylint: disable=protected-access
        if item == full_on:
            raise errors.DiskFull(errno.ENOSPC, "No space left on device", "/scratch/t.png")
        if gate and item in gate:
            wait_for, to_set = gate[item]
            if to_set is not None:
                to_set.set()
            if wait_for is not None:
                assert wait_for.wait(WAIT)
        sample = scorecard_pb2.SampleScore(sample_id=f"s{item:02d}", split="split",
                                           scene="scene")
        sample.metrics["value"] = loaded + 1
        sample.diagnostics["pid"] = str(os.getpid())
        return sample
    return score


def _install(**common):
    ray_executor.install(CommonConfig(**common))
    return executor_lib.current()


@pytest.fixture(autouse=True)
def _local_afterwards():
    yield
    executor_lib.install(None)


def _run(path, score, items=ITEMS, resume=False, on_sample=None):
    with SampleStore(path, "settings", resume) as store:
        return sample_loop.run(items, _ref, store, _load, score, "toy", on_sample=on_sample)


def _rows(path):
    """The stored rows without what differs by process (pid, seconds)."""
    rows = [json.loads(line) for line in pathlib.Path(path).read_text().splitlines()]
    for row in rows:
        row.get("diagnostics", {}).pop("pid", None)
        row.pop("seconds", None)
    return rows


def test_processes_store_the_local_rows_and_record_themselves(tmp_path):
    _run(tmp_path / "local.jsonl", _scorer())
    remote = _install(executor="processes", num_workers=2)
    assert isinstance(remote, process_executor.ProcessExecutor)
    assert executor_lib.record() == {"executor": "processes", "workers": "2"}
    assert remote.device("auto") == "cpu" and remote.device("cuda:1") == "cuda:1"
    seen = []
    outcome = _run(tmp_path / "processes.jsonl", _scorer(),
                   on_sample=lambda item, s: seen.append(item))
    assert _rows(tmp_path / "processes.jsonl") == _rows(tmp_path / "local.jsonl")
    assert [s.metrics["value"] for s in outcome.samples] == [i * 10 + 1 for i in ITEMS]
    assert seen == ITEMS  # on_sample in the samples' order
    pids = {s.diagnostics["pid"] for s in outcome.samples}
    assert len(pids) == 2 and str(os.getpid()) not in pids  # two workers, not the driver


def test_rows_are_emitted_as_they_arrive_whatever_the_order(tmp_path):
    """Sample 0 waits until sample 1 has been scored on the other worker: 1 arrives
    first, and the loop still stores and hands on_sample the samples in order."""
    with multiprocessing.get_context("spawn").Manager() as manager:
        one_scored = manager.Event()
        remote = _install(executor="processes", num_workers=2)
        arrived = []
        refs = [_ref(i) for i in (0, 1)]
        remote.evaluate([0, 1], refs, _load, _scorer(gate={0: (one_scored, None),
                                                            1: (None, one_scored)}),
                        "toy", lambda index, sample: arrived.append(index))
        assert arrived == [1, 0]
        seen = []
        outcome = _run(tmp_path / "s.jsonl", _scorer(gate={0: (one_scored, None)}),
                       items=[0, 1], on_sample=lambda item, s: seen.append(item))
    assert seen == [0, 1] and [s.sample_id for s in outcome.samples] == ["s00", "s01"]


def test_a_killed_worker_retries_then_gives_an_error_row_and_the_rest_go_on(tmp_path):
    marks = tmp_path / "marks"
    marks.mkdir()
    _install(executor="processes", num_workers=2, max_sample_retries=1)
    outcome = _run(tmp_path / "s.jsonl", _scorer(str(marks), die_on=3))
    bad = outcome.samples[3]
    assert "worker process" in bad.error and "ended (exit code 3)" in bad.error
    assert "--max_sample_retries=1" in bad.error and "WorkerDied" in bad.error
    assert not sample_loop.is_internal_error(bad)
    assert int(bad.diagnostics[process_executor.WORKER_LOST]) >= 2
    assert [s.metrics["value"] for i, s in enumerate(outcome.samples) if i != 3] == [
        i * 10 + 1 for i in ITEMS if i != 3]
    # Tried alone max_sample_retries + 1 times (plus any death shared with a neighbour).
    assert len(list(marks.glob("3-*"))) == int(bad.diagnostics[process_executor.WORKER_LOST])
    assert len(_rows(tmp_path / "s.jsonl")) == len(ITEMS)


def test_a_worker_killed_once_loses_no_sample_and_stores_none_twice(tmp_path):
    marks = tmp_path / "marks"
    marks.mkdir()
    _install(executor="processes", num_workers=2)
    outcome = _run(tmp_path / "s.jsonl", _scorer(str(marks), die_on=5, die_once=True))
    assert not any(s.error for s in outcome.samples)
    assert outcome.samples[5].diagnostics[process_executor.WORKER_LOST] == "1"
    assert [r["sample_id"] for r in _rows(tmp_path / "s.jsonl")] == [
        f"s{i:02d}" for i in ITEMS]


def test_a_full_disk_on_a_worker_stops_the_run_and_resume_on_another_executor_goes_on(
        tmp_path):
    marks = tmp_path / "marks"
    marks.mkdir()
    _install(executor="processes", num_workers=2)
    with pytest.raises(errors.DiskFull) as raised:
        _run(tmp_path / "s.jsonl", _scorer(str(marks), full_on=4))
    assert raised.value.errno == errno.ENOSPC and raised.value.filename == "/scratch/t.png"
    stored = {r["sample_id"] for r in _rows(tmp_path / "s.jsonl")}
    assert "s04" not in stored

    executor_lib.install(None)  # resumed locally: only what was not stored is scored
    local_calls = []

    def counted(item, loaded):
        local_calls.append(item)
        return _scorer()(item, loaded)
    outcome = _run(tmp_path / "s.jsonl", counted, resume=True)
    assert sorted(local_calls) == [i for i in ITEMS if f"s{i:02d}" not in stored]
    assert [s.metrics["value"] for s in outcome.samples] == [i * 10 + 1 for i in ITEMS]


def test_a_local_run_resumed_on_processes_recomputes_nothing_stored(tmp_path):
    _run(tmp_path / "s.jsonl", _scorer(), items=ITEMS[:5])
    marks = tmp_path / "marks"
    marks.mkdir()
    _install(executor="processes", num_workers=2)
    _run(tmp_path / "s.jsonl", _scorer(str(marks)), resume=True)
    assert sorted(p.name for p in marks.iterdir()) == ["5-0", "6-0", "7-0"]
    _run(tmp_path / "s.jsonl", _scorer(str(marks)), resume=True)  # all stored: none runs
    assert len(list(marks.iterdir())) == 3
    assert [r["sample_id"] for r in _rows(tmp_path / "s.jsonl")] == [
        f"s{i:02d}" for i in ITEMS]
