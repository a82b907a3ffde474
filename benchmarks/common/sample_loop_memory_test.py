"""Memory of the shared sample loop does not grow with the number of samples.

1,000 synthetic clips (8 frames of 96 x 96 x 3, 221 KB each; 221 MB if the loop kept
them) decoded one ahead on the prefetch thread, scored by a weight-free family and
appended to the per-sample store. Three measures, none of which a busy machine moves:

* the decoded clips alive when each sample is scored, counted exactly (a finalizer on
  each): at most LIVE_BOUND (the one scored, the one loaded ahead, and one the loop is
  letting go), whatever the timing of the prefetch thread;
* the bytes this process allocated through Python and numpy (tracemalloc): after the
  first 100 samples they may grow by at most GROWTH_BOUND_MB (the rows kept for the
  scorecard, ~0.3 KB each), a fifth of what holding the frames takes. It counts what
  is allocated, not what the allocator keeps or the kernel reclaims, so neither the
  order in which the two threads free their buffers nor memory pressure from other
  processes moves it;
* the resident set (/proc), as a backstop for memory tracemalloc does not see: growth
  under half of what holding the frames takes. The whole process peaks under 90 MB, so
  no allocator or page-cache noise reaches that bound, while a loop that keeps the
  frames (221 MB) exceeds it.

Each fails if the loop keeps the decoded clips (a list of them, a future per sample, a
row holding its frames): the live count reaches the number of samples, the traced and
resident growth hundreds of MB. Measured here (CPython 3.11, local executor, tracemalloc
on): at most 2 clips alive; from sample 100 to 1,000 the traced bytes grew 0.33 MB and
the resident set 2.8 MB (peak 89.8 MB).
"""

import pathlib
import threading
import tracemalloc
import weakref

import numpy as np

from benchmarks.common import family as family_lib
from benchmarks.common import sample_context
from benchmarks.common import sample_loop
from benchmarks.common.sample_store import SampleStore
from proto import scorecard_pb2

SAMPLES = 1000
SHAPE = (8, 96, 96, 3)
GROWTH_BOUND_MB = 24.0
LIVE_BOUND = 3


def _rss_mb() -> float:
    for line in pathlib.Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0
    raise AssertionError("no VmRSS in /proc/self/status")


def _ref(index: int) -> sample_loop.SampleRef:
    return sample_loop.SampleRef(f"clip{index:05d}", "synthetic")


class _Clips:
    """Loads the synthetic clips and counts those still alive (a finalizer per clip)."""

    def __init__(self):
        self._lock = threading.Lock()
        self.live = 0

    def _freed(self):
        with self._lock:
            self.live -= 1

    def load(self, index: int) -> np.ndarray:
        clip = np.random.default_rng(index).integers(0, 256, SHAPE, dtype=np.uint8)
        with self._lock:
            self.live += 1
        weakref.finalize(clip, self._freed)
        return clip


def _family() -> family_lib.Family:
    def compute(ctx):
        return family_lib.FamilyResult({"mean": float(ctx.frames.mean())})
    return family_lib.FunctionFamily("mean", ("mean",), compute,
                                     scorecard_pb2.Backend(name="numpy-mean"))


def test_memory_does_not_grow_with_the_samples(tmp_path):
    families, clips, live, traced, rss = [_family()], _Clips(), [], [], []

    def score(index, frames):
        r = _ref(index)
        sample = scorecard_pb2.SampleScore(sample_id=r.sample_id, split=r.split)
        ctx = sample_context.SampleContext(sample_id=r.sample_id, split=r.split, frames=frames)
        sample.metrics.update(sample_loop.run_families(ctx, families, sample))
        live.append(clips.live)
        traced.append(tracemalloc.get_traced_memory()[0] / 2**20)
        rss.append(_rss_mb())
        return sample

    tracemalloc.start()
    try:
        with SampleStore(tmp_path / "per_sample_scores.jsonl", "memory", resume=False) as store:
            outcome = sample_loop.run(list(range(SAMPLES)), _ref, store, clips.load, score,
                                      label="memory")
    finally:
        tracemalloc.stop()
    assert len(outcome.samples) == SAMPLES and not any(s.error for s in outcome.samples)
    assert len((tmp_path / "per_sample_scores.jsonl").read_text().splitlines()) == SAMPLES
    held = SAMPLES * np.prod(SHAPE) / 2**20
    assert 1 <= max(live) <= LIVE_BOUND, (max(live), live[:10])
    growth = max(traced[100:]) - traced[99]
    assert growth < GROWTH_BOUND_MB < held / 5, (growth, traced[99], max(traced))
    resident = max(rss[100:]) - rss[99]
    assert resident < held / 2, (resident, rss[99], max(rss))
