"""Progress of a long step: samples done/total, samples per minute, ETA, failures so far.

On a terminal the line is redrawn in place on stderr after every sample; otherwise (a
batch job's log) it is logged at most every `every_s` seconds, and once at the end.
"""

import sys
import time
from typing import Callable, Optional, TextIO

from absl import logging


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


class Progress:
    """Counts finished samples of one step and reports the rate and time left."""

    def __init__(self, label: str, total: int, stream: Optional[TextIO] = None,
                 every_s: float = 30.0, clock: Callable[[], float] = time.monotonic):
        self.label, self.total, self.every_s, self.clock = label, total, every_s, clock
        self.stream = stream if stream is not None else sys.stderr
        self.interactive = bool(getattr(self.stream, "isatty", lambda: False)())
        self.done = self.failed = 0
        self.start = self._last = clock()

    def line(self) -> str:
        elapsed = self.clock() - self.start
        text = f"{self.label}: {self.done}/{self.total}"
        if self.done and elapsed > 0:
            rate = self.done / elapsed * 60
            text += f" · {rate:.1f}/min"
            if self.done < self.total:
                text += f" · ETA {_duration((self.total - self.done) / self.done * elapsed)}"
        text += f" · {_duration(elapsed)} elapsed"
        if self.failed:
            text += f" · {self.failed} failed"
        return text

    def update(self, failed: bool = False) -> None:
        """One more sample finished (`failed`: it is an error row)."""
        self.done += 1
        self.failed += int(failed)
        now = self.clock()
        if self.interactive:
            end = "\n" if self.done == self.total else ""
            self.stream.write("\r\033[K" + self.line() + end)
            self.stream.flush()
        elif self.done == self.total or now - self._last >= self.every_s:
            self._last = now
            logging.info("%s", self.line())
