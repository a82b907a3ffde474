"""Measures how the shared sample loop scales: samples per minute on 1, 2, 4 Ray workers
(and the local loop), the local loop reading 1, 2, 4 samples ahead (--decode_workers),
and what splitting a run into shards and merging them costs.

    bazel run //tools/bench:scale -- --clips=64 --frames=16 --size=128 --workers=1,2,4 \
        --local_decode_workers=1,2,4

The samples are synthetic clips made in each worker from a seed (a drifting random
image against a noisier copy of itself), scored by weight-free pixel metrics (PSNR and
SSIM per frame pair) through the engine's families, so the figures measure the engine
and executor overhead, not a benchmark's models. For the --decode_workers rows the clips
are first written as PNG frame folders (not timed) and each sample's load decodes its two
folders with metrics.video.frames (OpenCV, which releases the GIL), as a runner's load
does. A benchmark script, not a test: CI never runs it. Ray starts on this machine
unless --ray_address says otherwise.
"""

import dataclasses
import functools
import pathlib
import tempfile
import time
from typing import List

import cv2
import numpy as np
from absl import app
from absl import flags

from benchmarks.common import executor as executor_lib
from benchmarks.common import family as family_lib
from benchmarks.common import flags as common_flags
from benchmarks.common import ray_executor
from benchmarks.common import sample_context
from benchmarks.common import sample_loop
from benchmarks.common import shards
from benchmarks.common.flags import CommonConfig
from benchmarks.common.sample_store import SampleStore
from metrics import cli_support
from metrics.pixel import psnr
from metrics.pixel import ssim
from metrics.video import frames as frames_lib
from proto import scorecard_pb2
from tools.merge import merge_lib

_CLIPS = flags.DEFINE_integer("clips", 64, "Synthetic clips per measurement.", lower_bound=1)
_FRAMES = flags.DEFINE_integer("frames", 16, "Frames per clip.", lower_bound=1)
_SIZE = flags.DEFINE_integer("size", 128, "Frame height and width (pixels).", lower_bound=8)
_WORKERS = flags.DEFINE_list("workers", ["1", "2", "4"], "Ray worker counts to measure.")
_DECODE = flags.DEFINE_list(
    "local_decode_workers", ["1", "2", "4"], "--decode_workers values of the local loop "
    "to measure on PNG frame folders (empty: skip).")
_FRAME_THREADS = flags.DEFINE_integer(
    "frame_threads", 1, "Threads decoding one frame folder in the --decode_workers rows "
    "(runners default to $WORLDEVAL_FRAME_THREADS, else min(8, cores)).", lower_bound=1)
_SHARDS = flags.DEFINE_integer("shards", 4, "Shards for the shard+merge measurement.",
                               lower_bound=1)
# Also the runners' --ray_address and --gpus_per_worker (benchmarks/common/flags.py).


@dataclasses.dataclass(frozen=True)
class Clip:
    index: int
    frames: int
    size: int


def _ref(clip: Clip) -> sample_loop.SampleRef:
    return sample_loop.SampleRef(f"clip{clip.index:05d}", "synthetic")


def _load(clip: Clip):
    """(generated, reference) frames, BGR uint8: the "decode" of a synthetic clip."""
    rng = np.random.default_rng(clip.index)
    shape = (clip.frames, clip.size, clip.size, 3)
    reference = np.clip(rng.normal(128, 40, shape[1:])[None] + rng.normal(0, 4, shape).cumsum(0),
                        0, 255).astype(np.uint8)
    noise = rng.normal(0, 12, shape)
    return np.clip(reference + noise, 0, 255).astype(np.uint8), reference


@dataclasses.dataclass(frozen=True, kw_only=True)
class _Context(sample_context.SampleContext):
    reference_frames: np.ndarray


def _pixel_family() -> family_lib.Family:
    def compute(ctx: _Context):
        pairs = list(zip(ctx.frames, ctx.reference_frames))
        return family_lib.FamilyResult({
            "psnr": float(np.mean([psnr.peak_signal_noise_ratio(a, b) for a, b in pairs])),
            "ssim": float(np.mean([ssim.structural_similarity_bgr(a, b) for a, b in pairs]))})
    return family_lib.FunctionFamily("pixel", ("psnr", "ssim"), compute,
                                     scorecard_pb2.Backend(name="opencv-psnr-ssim"))


def _scorer(families):
    def score(clip: Clip, loaded) -> scorecard_pb2.SampleScore:
        generated, reference = loaded
        r = _ref(clip)
        sample = scorecard_pb2.SampleScore(sample_id=r.sample_id, split=r.split)
        ctx = _Context(sample_id=r.sample_id, split=r.split, frames=generated,
                       reference_frames=reference)
        sample.metrics.update(sample_loop.run_families(ctx, families, sample))
        return sample
    return score


def _write_png(clips: List[Clip], root: pathlib.Path) -> None:
    """Each clip's (generated, reference) frames as root/<sample id>/{gen,ref}/NNNN.png."""
    for clip in clips:
        for name, frames in zip(("gen", "ref"), _load(clip)):
            folder = root / _ref(clip).sample_id / name
            folder.mkdir(parents=True)
            for index, frame in enumerate(frames):
                cv2.imwrite(str(folder / f"{index:04d}.png"), frame)


def _load_png(root: pathlib.Path, threads: int, clip: Clip):
    folder = root / _ref(clip).sample_id
    return tuple(frames_lib.read_frame_folder(folder / name, workers=threads)
                 for name in ("gen", "ref"))


def _timed_run(clips: List[Clip], folder: pathlib.Path, load=_load,
               decode_workers: int = 1) -> float:
    """Seconds to score `clips` into a fresh store in `folder` (whichever executor)."""
    start = time.perf_counter()
    with SampleStore(folder / "per_sample_scores.jsonl", "scale", resume=False) as store:
        outcome = sample_loop.run(clips, _ref, store, load, _scorer([_pixel_family()]),
                                  label=folder.name, decode_workers=decode_workers)
    failed = [s.sample_id for s in outcome.samples if s.error]
    if failed:
        raise RuntimeError(f"{len(failed)} synthetic samples failed, e.g. {failed[0]}")
    return time.perf_counter() - start


def _shard_and_merge(clips: List[Clip], root: pathlib.Path, count: int):
    """(seconds scoring the shards one after another, seconds merging their stores)."""
    parts, seconds = [], 0.0
    for index in range(count):
        common = CommonConfig(num_shards=count, shard_index=index)
        mine = shards.select(clips, lambda c: _ref(c).key, common)
        folder = root / f"shard{index}"
        seconds += _timed_run(mine, folder)
        card = scorecard_pb2.Scorecard()
        card.run.flags.update({"shard_index": str(index), "num_shards": str(count)})
        parts.append(merge_lib.Shard(folder, card))
    start = time.perf_counter()
    merged = root / "merged"
    merged.mkdir()
    merge_lib.combine_stores(parts, merged)
    with SampleStore(merged / "per_sample_scores.jsonl", "scale", resume=True,
                     stored_only=True) as store:
        sample_loop.run(clips, _ref, store, _load, _scorer([]), label="merge")
        if sum(1 for c in clips if _ref(c).key in store) != len(clips):
            raise RuntimeError("the merged store misses samples")
    return seconds, time.perf_counter() - start


def _decode_rows(clips: List[Clip], root: pathlib.Path):
    """[(row name, seconds)] of the local loop at each --local_decode_workers value."""
    if not _DECODE.value:
        return []
    _write_png(clips, root)
    load = functools.partial(_load_png, root, _FRAME_THREADS.value)
    _timed_run(clips[:2], root.parent / "png_warmup", load)  # page cache, imports
    return [(f"decode_workers={n}", _timed_run(clips, root.parent / f"png{n}", load, int(n)))
            for n in _DECODE.value]


def _rate(count: int, seconds: float) -> str:
    return f"{60.0 * count / seconds:10.1f}"


def main(argv):
    if len(argv) > 1:
        raise app.UsageError("unexpected arguments: " + " ".join(argv[1:]), exitcode=2)
    clips = [Clip(i, _FRAMES.value, _SIZE.value) for i in range(_CLIPS.value)]
    root = pathlib.Path(tempfile.mkdtemp(prefix="worldeval-scale-"))
    rows, cluster = [], ""
    executor_lib.install(None)
    local = _timed_run(clips, root / "local")
    rows.append(("local loop", local))
    for workers in (int(w) for w in _WORKERS.value):
        executor = ray_executor.RayExecutor(CommonConfig(
            executor="ray", num_workers=workers, ray_address=common_flags.RAY_ADDRESS.value,
            gpus_per_worker=common_flags.GPUS_PER_WORKER.value))
        if not rows[1:]:
            start = time.perf_counter()
            executor.connect()
            rows.append(("(starting Ray)", time.perf_counter() - start))
        executor_lib.install(executor)
        rows.append((f"ray, {workers} workers", _timed_run(clips, root / f"ray{workers}")))
        cluster = executor_lib.record().get("ray_cluster", "")
    executor_lib.install(None)
    decoded = _decode_rows(clips, root / "png")
    sharded, merging = _shard_and_merge(clips, root / "shards", _SHARDS.value)

    print(f"{len(clips)} synthetic clips, {_FRAMES.value} frames of {_SIZE.value}x"
          f"{_SIZE.value}, PSNR+SSIM per frame pair (outputs under {root})")
    if _WORKERS.value:
        print(f"Ray cluster: {cluster} (each run below includes starting its actors)")
    print(f"  {'executor':<22} {'seconds':>9} {'samples/min':>12} {'speed-up':>9}")
    for name, seconds in rows:
        if name.startswith("("):
            print(f"  {name:<22} {seconds:9.2f}")
            continue
        print(f"  {name:<22} {seconds:9.2f} {_rate(len(clips), seconds):>12} "
              f"{local / seconds:8.2f}x")
    print(f"  {f'{_SHARDS.value} shards, in turn':<22} {sharded:9.2f} "
          f"{_rate(len(clips), sharded):>12} {local / sharded:8.2f}x")
    print(f"  merge of {_SHARDS.value} shards: {merging:.3f} s "
          f"(shard+merge overhead vs one run: {sharded + merging - local:+.2f} s)")
    _print_decoded(len(clips), decoded)


def _print_decoded(count: int, decoded) -> None:
    if not decoded:
        return
    print(f"Local loop, loads decoding PNG frame folders ({_FRAME_THREADS.value} thread(s) "
          "per folder); speed-up vs the first row:")
    for name, seconds in decoded:
        print(f"  {name:<22} {seconds:9.2f} {_rate(count, seconds):>12} "
              f"{decoded[0][1] / seconds:8.2f}x")


if __name__ == "__main__":
    app.run(main, flags_parser=cli_support.parse_flags)
