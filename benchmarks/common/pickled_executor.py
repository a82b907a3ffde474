"""Tests only: an executor that ships each step as the Ray executor does, in this process.

`evaluate` serializes the step's `(load, score, batch)` with cloudpickle (the serializer
behind `ray.put`), keeps the size, unpickles it and scores every sample with the copy on
a ray_worker.Worker, the way one Ray actor would: with a --sample_batch stage, in groups
of batch.size consecutive samples (a busy actor's groups, formed deterministically).
Tests use it to see what an actor receives (its size, which models it builds, which
calls it shares) without starting Ray.
"""

from typing import Dict, List

import cloudpickle

from benchmarks.common import ray_worker


class PickledExecutor:
    """Scores each step on an unpickled copy of its functions; see the module docstring."""

    def __init__(self):
        self.shipped_bytes: List[int] = []  # one per step, in order
        self.copies: List[tuple] = []  # the unpickled (load, score) of each step

    def record(self) -> Dict[str, str]:
        return {"executor": "pickled (tests)"}

    def device(self, flag: str) -> str:
        return "cpu" if flag in ("", "auto") else flag

    def evaluate(self, todo, refs, load, score, label, emit, ahead: int = 1,
                 batch=None) -> None:
        del label, ahead
        blob = cloudpickle.dumps((load, score, batch))
        self.shipped_bytes.append(len(blob))
        copy_load, copy_score, copy_batch = cloudpickle.loads(blob)
        self.copies.append((copy_load, copy_score))
        worker = ray_worker.Worker((copy_load, copy_score, copy_batch))
        size = copy_batch.size if copy_batch is not None else 1
        for start in range(0, len(todo), size):
            group = [(item, ref, ray_worker.loaded_future(copy_load, item))
                     for item, ref in zip(todo[start:start + size], refs[start:start + size])]
            for offset, sample in enumerate(worker.score_group(group)):
                emit(start + offset, sample)
