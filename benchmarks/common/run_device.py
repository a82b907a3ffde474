"""The torch device a run's models use, as the executor places them.

Locally it is this machine's (metrics.device: "auto" is the first CUDA device when one is
visible); on --executor=ray it is the actors' ("auto" is cuda when each actor is given a
GPU), whatever the driver has. Steps resolve --device with this, never with the driver's
torch alone. Kept apart from executor.py, which every runner's lightest targets import.
"""

from benchmarks.common import executor as executor_lib


def resolve(flag: str) -> str:
    """The device models run on for --device=`flag` under the installed executor."""
    remote = executor_lib.current()
    if remote is None:
        from metrics import device as device_lib  # pylint: disable=import-outside-toplevel
        return str(device_lib.resolve_device(flag))
    return remote.device(flag)


def of_models(loaded: bool, flag: str) -> str:
    """The run record's device: `resolve(flag)` where a model ran, else "cpu"."""
    return resolve(flag) if loaded else "cpu"
