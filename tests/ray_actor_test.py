"""--executor=ray, inside one actor: it loads its next samples while it scores one, one
sample scored at a time, --sample_batch groups of the samples loaded together; and a run
whose actor cannot be placed stops with what is free. On the Ray of
tests/ray_cluster.py, shared with ray_executor_test.py (the same test target).
"""

import threading

from benchmarks.common import executor as executor_lib
from benchmarks.common import ray_executor
from benchmarks.common import sample_batch
from benchmarks.common import sample_loop
from benchmarks.common.errors import InputError
from benchmarks.common.flags import CommonConfig
from benchmarks.common.sample_store import SampleStore
from proto import scorecard_pb2
from tests.ray_cluster import ray  # noqa: F401  (the pytest fixture)


def _ref(item):
    return sample_loop.SampleRef(f"s{item:02d}", "split")


def _load(item):
    return item * 10


# --- an actor decodes ahead while it scores ---------------------------------------------
# The actor's load and score calls synchronize through events (a _Log shared by both on
# the actor), each wait with a WAIT timeout that fails the test, never through sleeps or
# timings. Where a check must give a broken actor the chance to do what it must not (a
# second scorer, a load beside a score), it waits up to GRACE for that to happen: a
# correct actor passes whatever the machine's load; GRACE only sets how surely a broken
# one is caught.

WAIT = 60.0  # seconds before a missed synchronization fails the test (never reached)
GRACE = 0.5


class _Log:
    """What one actor's load and score calls did, with a condition to wait on. Ray ships
    the step's load and score in one pickle, so both get the same _Log on the actor,
    rebuilt empty there (the driver's copy sees nothing)."""

    def __init__(self):
        self._cond = threading.Condition()
        self.events = set()  # (kind, item): load_start, load_end, score_start, score_end
        self.scoring = self.max_scoring = self.loads_beside_scoring = 0

    def __reduce__(self):
        return type(self), ()

    def add(self, kind: str, item: int) -> None:
        with self._cond:
            self.events.add((kind, item))
            if kind == "load_start" and self.scoring:
                self.loads_beside_scoring += 1
            self.scoring += {"score_start": 1, "score_end": -1}.get(kind, 0)
            self.max_scoring = max(self.max_scoring, self.scoring)
            self._cond.notify_all()

    def wait(self, until, timeout: float) -> bool:
        with self._cond:
            return self._cond.wait_for(until, timeout)

    def load(self, item):
        self.add("load_start", item)
        self.add("load_end", item)
        return item * 10

    def row(self, item, **diagnostics) -> scorecard_pb2.SampleScore:
        sample = scorecard_pb2.SampleScore(sample_id=f"s{item:02d}", split="split")
        sample.diagnostics.update({k: str(v) for k, v in diagnostics.items()})
        sample.diagnostics.update(max_scoring=str(self.max_scoring),
                                  loads_beside_scoring=str(self.loads_beside_scoring))
        return sample


class _Ahead(_Log):
    """score(i), while samples other than i are left, waits until one of them has loaded
    (the driver keeps two on the actor, whichever order they are scored in; with one at
    a time none can load), then gives a second scorer GRACE to enter (it must not)."""

    items = 4

    def _loaded_unscored(self, item) -> bool:
        return any(("load_end", j) in self.events and ("score_start", j) not in self.events
                   for j in range(self.items) if j != item)

    def score(self, item, loaded):
        del loaded
        self.add("score_start", item)
        left = [j for j in range(self.items) if ("score_start", j) not in self.events]
        ahead = not left or self.wait(lambda: self._loaded_unscored(item), WAIT)
        self.wait(lambda: self.scoring > 1, GRACE)
        sample = self.row(item, next_loaded_while_scoring=ahead)
        self.add("score_end", item)
        return sample


class _OneAtATime(_Log):
    """score(i) gives another sample's load GRACE to start beside it (it must not)."""

    items = 4

    def score(self, item, loaded):
        del loaded
        self.add("score_start", item)
        self.wait(lambda: self.loads_beside_scoring > 0, GRACE)
        sample = self.row(item)
        self.add("score_end", item)
        return sample


def _on_one_actor(tmp_path, log, name, **kw):
    ray_executor.install(CommonConfig(executor="ray", num_workers=1))
    path = tmp_path / f"{name}.jsonl"
    with SampleStore(path, "digest", resume=False) as store:
        outcome = sample_loop.run(list(range(log.items)), _ref, store, log.load, log.score,
                                  "test", **kw)
    assert [s.error for s in outcome.samples] == [""] * log.items
    assert len(path.read_text().splitlines()) == log.items  # each stored once
    return outcome.samples


def _most(samples, key):
    return max(int(s.diagnostics[key]) for s in samples)


def test_an_actor_loads_the_next_sample_while_it_scores_one(ray, tmp_path):
    """Fails if the actor stops loading ahead (score(i) would wait WAIT for another
    sample's load and record False), if two samples are scored at once on one actor, or
    if a step that loads nothing ahead (prefetch=False) gets its next sample before the
    last one is scored."""
    del ray
    ahead = _on_one_actor(tmp_path, _Ahead(), "ahead", prefetch=True)
    assert [s.diagnostics["next_loaded_while_scoring"] for s in ahead] == ["True"] * 4
    assert _most(ahead, "max_scoring") == 1  # scoring holds the actor's lock
    alone = _on_one_actor(tmp_path, _OneAtATime(), "alone", prefetch=False)
    assert _most(alone, "loads_beside_scoring") == 0
    assert _most(alone, "max_scoring") == 1


class _Grouped(_Log):
    """The first scored sample waits until the three in flight have loaded, so that those
    not in its group wait on the actor together: the stage must take them at once."""

    items = 7

    def score(self, item, loaded):
        value, group = loaded if isinstance(loaded, tuple) else (loaded, 1)  # a group of 1
        loaded_together = self.wait(
            lambda: all(("load_end", i) in self.events for i in range(3)), WAIT)
        sample = self.row(item, group=group, first_three_loaded=loaded_together)
        sample.metrics["value"] = value + 1
        return sample


def test_an_actor_runs_the_stage_on_the_samples_loaded_together(ray, tmp_path):
    """Fails if the stage gets one sample at a time (no group of 2 or 3) or more than
    --sample_batch, or if the actor holds fewer than 3 samples (first_three_loaded False
    after WAIT). Passing relies only on the events: the two samples loaded while the
    first is scored only have to reach the actor's queue (a few bytecodes after their
    load returns, no blocking call) before that scoring ends."""
    del ray
    log = _Grouped()
    stage = sample_batch.BatchStage(3, lambda items, loadeds: [(x, len(loadeds))
                                                               for x in loadeds])
    samples = _on_one_actor(tmp_path, log, "grouped", batch=stage)
    assert [s.metrics["value"] for s in samples] == [i * 10 + 1 for i in range(7)]
    assert all(s.diagnostics["first_three_loaded"] == "True" for s in samples)
    groups = [int(s.diagnostics["group"]) for s in samples]
    # 3 in flight on the one actor: while it scores, the next loads finish and wait;
    # the stage takes those together (never more than --sample_batch).
    assert max(groups) in (2, 3) and min(groups) >= 1, groups


class _Holder:
    def ping(self):
        return True


def test_an_actor_that_cannot_be_placed_stops_the_run_with_what_is_free(ray, tmp_path):
    """Fails if the run waits for a placement beyond --ray_placement_timeout_s=1.5 (the run
    has not returned after WAIT: a generous bound on a hang, not a timing) or stops
    without naming what it asked for and what is free."""
    holder = ray.remote(num_cpus=2)(_Holder).remote()  # holds both CPUs of this Ray
    outcome = {}

    def run():
        try:
            with SampleStore(tmp_path / "s.jsonl", "digest", resume=False) as store:
                sample_loop.run(list(range(3)), _ref, store, _load, _Ahead().score, "test")
        except InputError as e:
            outcome["error"] = e

    try:
        assert ray.get(holder.ping.remote(), timeout=WAIT)
        ray_executor.install(CommonConfig(executor="ray", num_workers=1,
                                          ray_placement_timeout_s=1.5))
        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        thread.join(WAIT)
        assert not thread.is_alive(), f"no answer after {WAIT:g} s: the placement wait hangs"
        error = str(outcome.get("error"))
        assert "--ray_placement_timeout_s" in error, outcome
        assert "1 CPU, 0 GPU" in error and "free" in error
    finally:
        ray.kill(holder)
        executor_lib.install(None)
