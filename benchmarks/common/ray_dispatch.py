"""The driver's side of one --executor=ray step (ray_executor.py): the queue of samples,
back-pressure per actor, retries of samples whose actor died (alone, so that a death is
their own), replacement of dead actors, and a full disk on an actor stopping the run."""

import collections
from typing import Dict, List, Optional

from absl import logging

from benchmarks.common import errors
from benchmarks.common import sample_loop
from proto import scorecard_pb2

# An actor slot that died this many times in a row, scoring nothing in between, is not
# replaced (e.g. its families cannot be unpickled or do not fit on the device).
SLOT_DEATHS = 3
WORKER_LOST = "worker_lost"  # diagnostics key: how many actors died on this sample


class Dispatch:
    """The driver's side of one step: queue, in-flight table, retries, dead actors."""

    def __init__(self, ray, executor, start, workers: int, todo, refs, emit,
                 label, in_flight: int):
        self.ray, self.ex, self.start, self.todo, self.refs = ray, executor, start, todo, refs
        self.in_flight_limit = in_flight
        self.emit, self.label = emit, label
        self.noun = getattr(executor, "worker_noun", "Ray worker")  # or "worker process"
        executor.actors = [start() for _ in range(workers)]
        self.queue = collections.deque(range(len(todo)))
        self.in_flight: Dict[object, tuple] = {}  # object ref -> (sample, actor, generation)
        self.load = [0] * workers
        self.streak = [0] * workers  # deaths of each slot since it last scored a sample
        self.generation = [0] * workers
        self.lost = collections.Counter()  # sample index -> actor deaths while scoring it
        self.blamed = collections.Counter()  # ... of them with no other sample on the actor
        self.last_died_on: Dict[int, int] = {}
        self.exclusive = set()  # actors running a sample that was on a dead actor, alone
        self.lost_errors = (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError,
                            ray.exceptions.ObjectLostError)

    def _alive(self) -> List[int]:
        return [a for a, d in enumerate(self.streak) if d < SLOT_DEATHS]

    def _pick(self, index: int) -> Optional[int]:
        """The least loaded live actor with room, preferring one this sample did not kill.
        A sample that was on a dead actor runs alone on an idle one (so that a second
        death is its own, not a neighbour's)."""
        alone = self.lost[index] > 0
        free = [a for a in self._alive() if a not in self.exclusive
                and self.load[a] < (1 if alone else self.in_flight_limit)]
        if not free:
            return None
        avoid = self.last_died_on.get(index)
        return min(free, key=lambda a: (a == avoid, self.load[a], a))

    def _submit(self) -> None:
        while self.queue:
            actor = self._pick(self.queue[0])
            if actor is None:
                return
            index = self.queue.popleft()
            obj = self.ex.actors[actor].evaluate.remote(self.todo[index], self.refs[index])
            alone = self.lost[index] > 0
            self.in_flight[obj] = (index, actor, self.generation[actor], alone)
            self.load[actor] += 1
            if alone:
                self.exclusive.add(actor)

    def run(self) -> None:
        while self.queue or self.in_flight:
            self._submit()
            if not self.in_flight:  # every actor is dead: nothing can score the rest
                for index in list(self.queue):
                    self._fail(index, f"no {self.noun} is left (each died {SLOT_DEATHS} "
                                      "times in a row without scoring a sample)")
                self.queue.clear()
                return
            ready, _ = self.ray.wait(list(self.in_flight), num_returns=1)
            for obj in ready:
                self._collect(obj)

    def _collect(self, obj) -> None:
        index, actor, generation, alone = self.in_flight.pop(obj)
        self.load[actor] -= 1
        if self.load[actor] == 0:
            self.exclusive.discard(actor)
        try:
            sample = scorecard_pb2.SampleScore.FromString(self.ray.get(obj))
        except self.lost_errors as e:
            if generation == self.generation[actor]:  # its first failed sample: replace it
                self._replace(actor)
            self._worker_died(index, actor, alone, e)
            return
        except self.ray.exceptions.RayError as e:  # e.g. the item did not unpickle there
            full = errors.full_disk(getattr(e, "cause", None))  # the actor's own exception
            if full is not None:  # the actor's disk is full: the run stops (exit 2)
                ref = self.refs[index]
                raise errors.DiskFull(full.errno, full.strerror, full.filename or (
                    f"a file written on a {self.noun} while scoring sample "
                    f"{ref.split}/{ref.sample_id}")) from e
            sample = sample_loop.error_sample(
                self.refs[index], f"internal error on a {self.noun} (a worldeval bug; please "
                f"report it): {type(e).__name__}: {e}", internal=True)
        self.streak[actor] = 0
        if self.lost[index]:
            sample.diagnostics[WORKER_LOST] = str(self.lost[index])
        self.emit(index, sample)

    def _replace(self, actor: int) -> None:
        self.streak[actor] += 1
        self.generation[actor] += 1
        self.ray.kill(self.ex.actors[actor], no_restart=True)
        if self.streak[actor] < SLOT_DEATHS:
            self.ex.actors[actor] = self.start()

    def _worker_died(self, index: int, actor: int, alone: bool, error: Exception) -> None:
        """A death while other samples shared the actor is retried without counting (any
        of them may have caused it); one while the sample ran alone is its own."""
        self.lost[index] += 1
        self.blamed[index] += int(alone)
        self.last_died_on[index] = actor
        first_line = (str(error).strip().splitlines() or [type(error).__name__])[0]
        logging.warning("%s %s: its %s died (%s; %d of at most %d tries alone): %s",
                        self.label, self.refs[index].sample_id, self.noun,
                        "alone" if alone else "with other samples on it", self.blamed[index],
                        self.ex.max_retries + 1, first_line)
        if self.blamed[index] > self.ex.max_retries:
            self._fail(index, f"its {self.noun} died {self.lost[index]} times while scoring it, "
                              f"{self.blamed[index]} of them with no other sample on it "
                              f"(--max_sample_retries={self.ex.max_retries}); last: "
                              f"{type(error).__name__}: {first_line}")
        else:
            self.queue.appendleft(index)

    def _fail(self, index: int, why: str) -> None:
        sample = sample_loop.error_sample(self.refs[index], why)
        sample.diagnostics[WORKER_LOST] = str(self.lost[index])
        self.emit(index, sample)
