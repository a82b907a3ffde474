"""peak_memory.Measure: the block's own peak, not the process's earlier one."""

import sys

import numpy as np

from benchmarks.common import peak_memory

MIB = 2**20


def _touch(megabytes: int) -> int:
    block = np.ones(megabytes * MIB // 8)  # written, so resident
    return int(block.sum())


def test_the_peak_is_the_blocks_not_an_earlier_one():
    _touch(400)  # an earlier, larger peak of this process
    with peak_memory.Measure() as small:
        _touch(40)
    with peak_memory.Measure() as large:
        _touch(200)
    assert small.host_bytes is not None and large.host_bytes is not None
    assert small.host_bytes - small.host_before < 120 * MIB  # not the 400 MiB one
    assert large.host_bytes - large.host_before > 180 * MIB
    assert large.host_bytes > small.host_bytes


def test_no_torch_no_device_figure_and_torch_stays_unimported():
    assert "torch" not in sys.modules  # this test's process never imports it
    with peak_memory.Measure() as peak:
        _touch(1)
    assert peak.device_bytes is None
    assert "torch" not in sys.modules


def test_without_proc_there_is_no_host_figure(monkeypatch, tmp_path):
    monkeypatch.setattr(peak_memory, "_STATUS", tmp_path / "absent")
    with peak_memory.Measure() as peak:
        _touch(1)
    assert peak.host_bytes is None and peak.host_before is None


def test_mib_text():
    assert peak_memory.mib(None) == ""
    assert peak_memory.mib(3 * MIB + MIB // 2) == "3.5"

