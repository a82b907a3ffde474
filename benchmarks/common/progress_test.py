"""The progress line: counts, rate, ETA and failures, redrawn on a terminal and logged
periodically otherwise."""

import io

from benchmarks.common import progress


class _Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_rate_eta_and_failures():
    clock = _Clock()
    p = progress.Progress("VMBench", 10, stream=io.StringIO(), clock=clock)
    assert p.line() == "VMBench: 0/10 · 0s elapsed"
    clock.now = 60.0
    p.update()
    p.update(failed=True)
    # 2 samples in 60 s: 2.0/min, 8 left at 30 s each = 4 min.
    assert p.line() == "VMBench: 2/10 · 2.0/min · ETA 4m00s · 1m00s elapsed · 1 failed"
    clock.now = 7200.0
    assert "ETA 8h00m" in p.line()  # 8 left at 3600 s each


def test_terminal_redraws_in_place_and_ends_the_line():
    stream = _Tty()
    p = progress.Progress("Step 1", 2, stream=stream, clock=_Clock())
    p.update()
    p.update()
    out = stream.getvalue()
    assert out.count("\r") == 2 and out.endswith("Step 1: 2/2 · 0s elapsed\n")


def test_not_a_terminal_logs_every_period_and_at_the_end(monkeypatch):
    logged = []
    monkeypatch.setattr(progress.logging, "info", lambda fmt, text: logged.append(text))
    clock = _Clock()
    stream = io.StringIO()
    p = progress.Progress("ORS", 4, stream=stream, every_s=30, clock=clock)
    for t in (10, 20, 45, 50):
        clock.now = t
        p.update()
    assert stream.getvalue() == ""
    assert [line.split(" · ")[0] for line in logged] == ["ORS: 3/4", "ORS: 4/4"]
