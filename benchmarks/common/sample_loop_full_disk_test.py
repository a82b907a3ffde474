"""A full disk (ENOSPC, EDQUOT) met while a sample is scored, e.g. a metric writing a temp
file: the run stops with errors.DiskFull (app_main: one line naming the file, or the
sample, exit 2) instead of the sample becoming an error row, the samples stored before
it are kept, and `--resume` scores only the rest, to the rows of a clean run. Wherever
the full disk is met: a family, the step's score or load, the --sample_batch stage, an
executor that ships the step to a worker (the Ray actor's side), the Ray driver."""

import errno
import json
import os
import types

import pytest

from benchmarks.common import app_main
from benchmarks.common import errors
from benchmarks.common import executor as executor_lib
from benchmarks.common import family as family_lib
from benchmarks.common import full_disk
from benchmarks.common import pickled_executor
from benchmarks.common import ray_dispatch
from benchmarks.common import sample_batch
from benchmarks.common import sample_loop
from benchmarks.common.sample_store import SampleStore
from proto import scorecard_pb2

ITEMS = list(range(6))
FULL_AT = 3  # the sample whose scoring meets the full disk
TEMP = "/scratch/metric_frames.tmp"


def _ref(item):
    return sample_loop.SampleRef(f"s{item}", "toy")


def _quota():
    return OSError(errno.EDQUOT, os.strerror(errno.EDQUOT))


def _wrapped():
    try:
        raise full_disk.enospc()
    except OSError as e:
        raise RuntimeError("the metric could not write its frames") from e


def _named():
    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), TEMP)


# where -> (the error the scoring meets, raised where)
CASES = {
    "family": (full_disk.enospc, "family"),  # an OSError: an expected error otherwise
    "family_wrapped": (_wrapped, "family"),  # a RuntimeError: a bug otherwise
    "family_quota": (_quota, "family"),
    "score_names_the_file": (_named, "score"),
    "load": (full_disk.enospc, "load"),  # an input error otherwise
    "stage": (full_disk.enospc, "stage"),  # the --sample_batch stage's expected error
    "stage_wrapped": (_wrapped, "stage"),  # ... or its bug
}


class _Disk:
    """Where and what the full disk raises (no case: a roomy disk); counts the scores."""

    def __init__(self, case=None):
        self.raise_, self.where = CASES[case] if case else (None, None)
        self.scored = []

    def hit(self, where, item) -> None:
        if self.where == where and item == FULL_AT:
            raise self.raise_()


class _Writes(family_lib.Family):
    name = "writes"
    metric_ids = ("m",)

    def __init__(self, disk):
        super().__init__(scorecard_pb2.Backend(name="toy"))
        self.disk = disk

    def compute(self, ctx):
        self.disk.hit("family", ctx.item)
        return family_lib.FamilyResult({"m": ctx.item / 10})


def _step(disk):
    family = _Writes(disk)

    def load(item):
        disk.hit("load", item)
        return item

    def score(item, loaded):
        disk.scored.append(item)
        disk.hit("score", item)
        sample = scorecard_pb2.SampleScore(sample_id=f"s{item}", split="toy")
        ctx = types.SimpleNamespace(sample_id=sample.sample_id, item=loaded, earlier={})
        sample.metrics.update(sample_loop.run_families(ctx, [family], sample))
        sample.seconds = 1.0
        return sample

    def stage(items, loadeds):
        for item in items:
            disk.hit("stage", item)
        return list(loadeds)

    return load, score, sample_batch.BatchStage(2, stage)


def _run(path, disk, resume=False, batch=False):
    load, score, stage = _step(disk)
    with SampleStore(path, "settings", resume) as store:
        return sample_loop.run(ITEMS, _ref, store, load, score, "toy",
                               batch=stage if batch else None)


def _rows(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def _stored_before(case: str) -> int:
    """How many samples a run stopped by the full disk stored: those before FULL_AT, or
    before its --sample_batch group (of 2), whose first sample raises the stage's error."""
    return FULL_AT - FULL_AT % 2 if CASES[case][1] == "stage" else FULL_AT


def _check_the_error(e: OSError, case: str) -> None:
    assert isinstance(e, errors.DiskFull)
    assert e.errno == (errno.EDQUOT if case == "family_quota" else errno.ENOSPC)
    if case == "score_names_the_file":
        assert e.filename == TEMP
    else:
        assert e.filename.startswith(
            f"a file written while scoring sample toy/s{_stored_before(case)} (on the disk "
            "of --output_dir or of the temp folder "), e.filename


def _untimed(samples):
    """The rows without the families' timings (diagnostics "seconds:<family>")."""
    out = []
    for sample in samples:
        sample = scorecard_pb2.SampleScore.FromString(sample.SerializeToString())
        for key in [k for k in sample.diagnostics if k.startswith(sample_loop.MEASURED)]:
            del sample.diagnostics[key]
        out.append(sample.SerializeToString(deterministic=True))
    return out


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_full_disk_while_scoring_stops_the_run_and_resume_scores_the_rest(tmp_path, case):
    batch = CASES[case][1] == "stage"
    clean = _run(tmp_path / "clean.jsonl", _Disk(), batch=batch)
    assert not clean.internal_errors and all(not s.error for s in clean.samples)
    path = tmp_path / "store.jsonl"
    with pytest.raises(errors.DiskFull) as raised:
        _run(path, _Disk(case), batch=batch)
    _check_the_error(raised.value, case)
    # What was stored is kept: every sample before it, no row for it (nor an error row).
    stored = [row["sample_id"] for row in _rows(path)]
    before = [f"s{i}" for i in range(_stored_before(case))]
    assert stored == before, stored
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    # --resume on a roomy disk scores the rest only, to the clean run's rows.
    roomy = _Disk()
    resumed = _run(path, roomy, resume=True, batch=batch)
    assert roomy.scored == ITEMS[len(before):]
    assert resumed.resumed == len(before) and not resumed.internal_errors
    assert _untimed(resumed.samples) == _untimed(clean.samples)


def test_through_app_main_it_is_one_line_and_exit_2(tmp_path, capsys):
    def main(argv):
        del argv
        _run(tmp_path / "store.jsonl", _Disk("family"))

    with pytest.raises(SystemExit) as raised:
        app_main.guard(main)(["prog"])
    err = capsys.readouterr().err
    assert raised.value.code == errors.EXIT_BAD_INPUT, err
    assert err.startswith(f"error: a file written while scoring sample toy/s{FULL_AT} (on "
                          "the disk of --output_dir or of the temp folder ")
    assert "no space left on device (ENOSPC)" in err and "--resume" in err
    assert err.count("\n") == 1 and "Traceback" not in err and "internal error" not in err


def test_a_full_disk_named_by_the_metric_is_named_through_app_main(tmp_path, capsys):
    def main(argv):
        del argv
        _run(tmp_path / "store.jsonl", _Disk("score_names_the_file"))

    with pytest.raises(SystemExit) as raised:
        app_main.guard(main)(["prog"])
    assert raised.value.code == 2
    assert capsys.readouterr().err.startswith(f"error: {TEMP}: could not be written: no space")


@pytest.mark.parametrize("case", ["family", "family_wrapped", "stage"])
def test_on_a_shipped_step_the_workers_full_disk_stops_the_run(tmp_path, case):
    """The executor that ships the step as Ray does (a ray_worker.Worker on an unpickled
    copy): the worker raises errors.DiskFull, the run stops, the samples before it stay."""
    path = tmp_path / "store.jsonl"
    executor_lib.install(pickled_executor.PickledExecutor())
    try:
        with pytest.raises(errors.DiskFull) as raised:
            _run(path, _Disk(case), batch=CASES[case][1] == "stage")
    finally:
        executor_lib.install(None)
    _check_the_error(raised.value, case)
    before = _stored_before(case)
    assert [row["sample_id"] for row in _rows(path)] == [f"s{i}" for i in range(before)]
    roomy = _Disk()
    assert len(_run(path, roomy, resume=True).samples) == len(ITEMS)
    assert roomy.scored == ITEMS[before:]


# --- the Ray driver: an actor's exception arrives as a RayTaskError carrying it ----------

class _RayError(Exception):
    pass


class _RayTaskError(_RayError):
    def __init__(self, cause):
        super().__init__(f"task failed: {cause!r}")
        self.cause = cause  # what Ray gives the driver: the actor's exception, unpickled


class _Lost(_RayError):
    pass


class _Obj:
    """An object ref: the serialized row, or the RayTaskError that ray.get raises."""

    def __init__(self, value):
        self.value = value


class _FakeRay:
    """What ray_dispatch.Dispatch uses of ray, with one synchronous actor running `evaluate`."""

    exceptions = types.SimpleNamespace(RayError=_RayError, RayActorError=_Lost,
                                       WorkerCrashedError=_Lost, ObjectLostError=_Lost)

    def __init__(self, evaluate):
        self.evaluate = evaluate

    def actor(self):
        def remote(item, ref):
            try:
                return _Obj(self.evaluate(item, ref))
            except Exception as e:  # pylint: disable=broad-except  (as Ray keeps it)
                return _Obj(_RayTaskError(e))
        return types.SimpleNamespace(evaluate=types.SimpleNamespace(remote=remote))

    @staticmethod
    def wait(refs, num_returns):
        return refs[:num_returns], refs[num_returns:]

    @staticmethod
    def get(obj):
        if isinstance(obj.value, Exception):
            raise obj.value
        return obj.value

    @staticmethod
    def kill(actor, no_restart):
        del actor, no_restart


def _dispatch(ray, emit, items=ITEMS):
    actor = ray.actor()
    return ray_dispatch.Dispatch(
        ray, types.SimpleNamespace(actors=[], max_retries=0), lambda: actor, 1, items,
        [_ref(i) for i in items], emit, "toy", 1)


def test_on_the_ray_driver_an_actors_full_disk_stops_the_run(tmp_path):
    load, score, _ = _step(_Disk("family"))
    ray = _FakeRay(lambda item, ref: sample_loop.evaluate_one(
        item, ref, load, score).SerializeToString())
    path = tmp_path / "store.jsonl"
    with SampleStore(path, "settings", resume=False) as store:
        dispatch = _dispatch(ray, lambda index, sample: store.append(sample))
        with pytest.raises(errors.DiskFull) as raised:
            dispatch.run()
    _check_the_error(raised.value, "family")
    assert [row["sample_id"] for row in _rows(path)] == [f"s{i}" for i in range(FULL_AT)]


def test_any_other_failure_of_an_actors_task_is_still_an_internal_error_row():
    def evaluate(item, ref):
        raise ValueError("the item did not unpickle")

    rows = []
    _dispatch(_FakeRay(evaluate), lambda index, sample: rows.append(sample), [0]).run()
    assert len(rows) == 1 and sample_loop.is_internal_error(rows[0])
    assert "internal error on a Ray worker" in rows[0].error
