"""The actor side of --executor=ray: one worker's step functions and how it scores.

A `Worker` gets the step's `(load, score, stage)` once (the stage is the step's
--sample_batch `sample_batch.BatchStage`, or None; shipped in the same pickle as the
families, so a model they share stays one object, loaded once). Its calls run on
threads (the actor's max_concurrency): each loads its sample at once, then waits for
the scoring lock, so the next samples decode while one is scored.

Without a stage the lock's holder scores its own sample: one at a time, as locally.
With one, the holder takes the loaded samples waiting (its own first in line or
behind others, at most stage.size), runs the stage on them and scores each: samples
that are ready together share their model calls, and none waits for another's load.
Each row goes back to the call that brought its sample; the stage's failures stay per
sample (sample_batch.run_stage). `score_group` is that step alone, for an executor
that forms the groups itself (benchmarks/common/pickled_executor.py).
"""

import collections
import concurrent.futures
import threading
from typing import List, Sequence, Tuple

from benchmarks.common import sample_batch
from benchmarks.common import sample_loop


def loaded_future(load, item) -> concurrent.futures.Future:
    """A done future holding load(item) or the exception it raised."""
    future = concurrent.futures.Future()
    try:
        future.set_result(load(item))
    except Exception as e:  # pylint: disable=broad-except  (sorted by evaluate_one)
        future.set_exception(e)
    return future


class Worker:
    """One Ray actor's step (see the module docstring)."""

    def __init__(self, functions):
        self._load, self._score, self._stage = functions
        self._scoring = threading.Lock()
        self._guard = threading.Lock()
        self._waiting = collections.deque()  # (item, ref, loaded, row future)

    def ready(self) -> bool:
        """Answers once the actor is placed and has its functions."""
        return True

    def evaluate(self, item, ref: sample_loop.SampleRef) -> bytes:
        """The serialized row of one sample."""
        loaded = loaded_future(self._load, item)
        if self._stage is None:
            with self._scoring:
                return sample_loop.evaluate_one(item, ref, self._load, self._score,
                                                loaded).SerializeToString()
        row = concurrent.futures.Future()
        with self._guard:
            self._waiting.append((item, ref, loaded, row))
        with self._scoring:
            while not row.done():  # ours is waiting: behind others, or first in line
                with self._guard:
                    group = [self._waiting.popleft()
                             for _ in range(min(len(self._waiting), self._stage.size))]
                self._deliver(group)
        return row.result()

    def _deliver(self, group) -> None:
        try:
            samples = self.score_group([entry[:3] for entry in group])
        except BaseException as e:  # an interrupt: no caller is left waiting forever
            for *_, row in group:
                if not row.done():
                    row.set_exception(e)
            raise
        for (*_, row), sample in zip(group, samples):
            row.set_result(sample.SerializeToString())

    def score_group(self, group: Sequence[Tuple[object, sample_loop.SampleRef,
                                                concurrent.futures.Future]]
                    ) -> List[object]:
        """The rows of (item, ref, done load future) entries scored together: through
        the stage (when there is one and more than one loaded), then one by one."""
        pending = [loaded for _, _, loaded in group]
        if self._stage is not None:
            pending = sample_batch.run_stage(self._stage, [item for item, _, _ in group],
                                             pending)
        return [sample_loop.evaluate_one(item, ref, self._load, self._score, loaded)
                for (item, ref, _), loaded in zip(group, pending)]
