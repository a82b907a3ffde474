"""Tests only: an executor that ships each step as the Ray executor does, in this process.

`evaluate` serializes the step's `(load, score)` with cloudpickle (the serializer behind
`ray.put`), keeps the size, unpickles it and scores every sample with the copy, the way
one Ray actor would. Tests use it to see what an actor receives (its size, which models
it builds) without starting Ray.
"""

from typing import Dict, List

import cloudpickle

from benchmarks.common import sample_loop


class PickledExecutor:
    """Scores each step on an unpickled copy of its functions; see the module docstring."""

    def __init__(self):
        self.shipped_bytes: List[int] = []  # one per step, in order
        self.copies: List[tuple] = []  # the unpickled (load, score) of each step

    def record(self) -> Dict[str, str]:
        return {"executor": "pickled (tests)"}

    def device(self, flag: str) -> str:
        return "cpu" if flag in ("", "auto") else flag

    def evaluate(self, todo, refs, load, score, label, emit, ahead: int = 1) -> None:
        del label, ahead
        blob = cloudpickle.dumps((load, score))
        self.shipped_bytes.append(len(blob))
        copy_load, copy_score = cloudpickle.loads(blob)
        self.copies.append((copy_load, copy_score))
        for index, (item, ref) in enumerate(zip(todo, refs)):
            emit(index, sample_loop.evaluate_one(item, ref, copy_load, copy_score))
