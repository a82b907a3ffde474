"""The peak memory of one step of scoring: host RSS and, where torch runs on CUDA, device bytes.

    with peak_memory.Measure() as peak:
        value = compute(video)
    peak.host_bytes, peak.device_bytes  # None where this machine cannot tell

Host: Linux keeps each process's high-water resident set (VmHWM in /proc/self/status) and
resets it when "5" is written to /proc/self/clear_refs (proc(5)), so the figure is the
true peak of the whole process while the step ran: the models it holds, the decoded
frames, other threads' buffers included (a decode-ahead thread's frames count too). It is
a process-wide figure by nature: what the step needs on top of what is resident is
`host_bytes - host_before`. Elsewhere (no /proc, a kernel refusing the reset) it is None.

Device: torch.cuda's peak allocated bytes, reset before the step (the caching allocator's
own count: what tensors held, not what the driver reserved). Only read when torch is
already imported and CUDA initialised by the step's models: measuring never imports torch
nor starts CUDA, so a weight-free runner stays torch-free.

Measuring resets the process's high-water marks: nested or concurrent measurements in
one process would see each other's resets, so the sample loop's steps measure one at a
time (each scoring worker scores one sample at a time).
"""

import pathlib
import re
import sys
from typing import Optional

_STATUS = pathlib.Path("/proc/self/status")
_CLEAR_REFS = pathlib.Path("/proc/self/clear_refs")
_FIELD = re.compile(r"^(VmHWM|VmRSS):\s+(\d+) kB$", re.MULTILINE)


def _status_kb() -> dict:
    try:
        return {m.group(1): int(m.group(2)) * 1024 for m in _FIELD.finditer(_STATUS.read_text())}
    except OSError:
        return {}


def _reset_host() -> bool:
    try:
        _CLEAR_REFS.write_text("5")
        return True
    except OSError:
        return False


def _cuda():
    """torch.cuda when torch is imported and CUDA is initialised here, else None."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    try:
        return torch.cuda if torch.cuda.is_initialized() else None
    except Exception:  # pylint: disable=broad-except  (a CPU build without the API)
        return None


class Measure:
    """A context manager measuring the peak memory of its block; see the module docstring."""

    def __init__(self):
        self.host_before: Optional[int] = None
        self.host_bytes: Optional[int] = None
        self.device_bytes: Optional[int] = None
        self._host = False
        self._cuda = None

    def __enter__(self) -> "Measure":
        self.host_before = _status_kb().get("VmRSS")
        self._host = self.host_before is not None and _reset_host()
        self._cuda = _cuda()
        if self._cuda is not None:
            self._cuda.reset_peak_memory_stats()
        return self

    def __exit__(self, *exc) -> None:
        if self._host:
            self.host_bytes = _status_kb().get("VmHWM")
        cuda = self._cuda or _cuda()  # the step may have started CUDA itself
        if cuda is not None:
            self.device_bytes = int(cuda.max_memory_allocated())


def mib(value: Optional[int]) -> str:
    """A diagnostics string of `value` bytes in MiB, one decimal ("" for None)."""
    return "" if value is None else f"{value / 2**20:.1f}"
