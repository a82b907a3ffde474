"""Which executor runs the shared sample loop in this process: local (the default) or Ray.

The loop (benchmarks/common/sample_loop.py) asks `current()` for the executor; None means
the local loop. `flags.common_config()` installs the one the flags ask for
(benchmarks/common/ray_executor.py for --executor=ray), so every runner gets it with no
code of its own. `record()` is what the scorecard's RunInfo.flags records about it.

An executor has `evaluate(todo, refs, load, score, label, emit)`: it scores every item of
`todo` (refs[i] is todo[i]'s SampleRef) and calls `emit(i, sample)` once per item, in
any order, as each result arrives; and `record() -> {str: str}`.
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
