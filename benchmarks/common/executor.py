"""Which executor runs the shared sample loop in this process: local (the default), local
worker processes or Ray.

The loop (benchmarks/common/sample_loop.py) asks `current()` for the executor; None means
the local loop. `flags.common_config()` installs the one the flags ask for
(ray_executor.install, the one place that chooses: benchmarks/common/process_executor.py
for --executor=processes, ray_executor.py for --executor=ray), so every runner gets it
with no code of its own. `record()` is what the scorecard's RunInfo.flags records about it.

An executor has `evaluate(todo, refs, load, score, label, emit, ahead=1, batch=None)`: it
scores every item of `todo` (refs[i] is todo[i]'s SampleRef) and calls `emit(i, sample)`
once per item, in any order, as each result arrives (`ahead`: how many samples a worker
may load while it scores one; 0 when the step loads nothing ahead; `batch`: the step's
--sample_batch stage, or None, for its workers to run on the samples they hold together); `record() -> {str: str}`; and
`device(flag) -> str`, the device its workers' models run on for --device=`flag`
(benchmarks/common/run_device.py asks it).
"""

from typing import Dict, Optional

_current = None


def install(executor) -> None:
    """Makes `executor` run the loop from now on (None: the local loop)."""
    global _current  # pylint: disable=global-statement
    _current = executor


def current() -> Optional[object]:
    return _current


def record() -> Dict[str, str]:
    """RunInfo.flags entries naming the executor (and, for Ray, the cluster it used)."""
    if _current is None:
        return {"executor": "local"}
    return dict(_current.record())


def run_on(remote, todo, refs, load, score, label, emit, on_sample, ahead: int = 1,
           batch=None) -> None:
    """Runs `todo` on `remote`: `emit(item, sample)` as each result arrives (any order),
    `on_sample(item, sample)` (when given) in `todo`'s order."""
    arrived = {}
    next_index = 0

    def arrive(index: int, sample) -> None:
        nonlocal next_index
        emit(todo[index], sample)
        arrived[index] = sample
        while next_index in arrived:
            done = arrived.pop(next_index)
            if on_sample is not None:
                on_sample(todo[next_index], done)
            next_index += 1

    remote.evaluate(todo, refs, load, score, label, arrive, ahead=ahead, batch=batch)
    if next_index < len(todo):
        missing = [r.sample_id for r in refs[next_index:]]
        raise RuntimeError(f"{label}: the executor returned no result for {missing[:5]}")
