"""--sample_batch: model calls shared by several samples, where the official protocol allows.

A benchmark whose families run a per-frame model (each frame through the network alone:
eval mode, no batch statistics, no cross-frame attention) may give the sample loop a
`BatchStage`. The local loop then takes the next `size` loaded samples together, calls
`stage.run(items, loadeds)` once, and scores each sample on the loaded value it returns
(the benchmark puts the shared model outputs in it; its families use them instead of
calling the model alone). Values move only by float rounding (the batch's matrix products
sum in another order); each benchmark's runner test pins that at 1e-5.

Failures stay per sample:
  - a sample whose load failed is left out of the stage and fails as without batching;
  - the stage raising an expected error (family.EXPECTED_ERRORS: a bad input) scores
    every sample of the group alone, each through its families' own path, so the error
    lands on the sample it belongs to;
  - anything else raised by the stage is our bug: every sample of the group is an
    internal-error row with the traceback (the run goes on and exits 1);
  - but a full disk (errors.full_disk: ENOSPC, EDQUOT), whatever wraps it, is the
    machine's: the group's first sample raises it when scored, which stops the run
    (sample_loop.evaluate_one: errors.DiskFull, exit 2).

`shared_calls` is the helper a stage is made of: every sample's frames through one
function in as few calls as the frames allow, the output split back per sample.
`frame_stage` is the stage most benchmarks need: a list of `FrameCall`s (which frames of
a loaded sample a per-frame model sees, and the model call), their rows put in each
loaded sample's `shared` dict under the call's name, which the engine hands the families
as `SampleContext.shared`.
"""

import concurrent.futures
import dataclasses
import functools
from typing import Callable, Hashable, List, Optional, Sequence

import numpy as np
from absl import logging

from benchmarks.common import errors
from benchmarks.common import family as family_lib
from benchmarks.common.errors import InputError


@dataclasses.dataclass(frozen=True)
class BatchStage:
    """`run(items, loadeds) -> loadeds` for `size` samples at a time (see above)."""

    size: int
    run: Callable[[Sequence[object], Sequence[object]], Sequence[object]]


def check_size(size) -> int:
    """The --sample_batch value, or InputError (exit 2) naming the flag."""
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise InputError("--sample_batch", "a whole number of samples, 1 or more", repr(size))
    return size


def stage_or_none(size: int, run) -> Optional[BatchStage]:
    """A stage of `size` samples, or None when there is nothing to share (size 1)."""
    return BatchStage(check_size(size), run) if size > 1 else None


def no_stage(size: int, label: str) -> None:
    """For a step with no per-frame model calls to share: None, after saying so when
    --sample_batch asked for more than 1 (the run's flags record it: the log says it did
    nothing)."""
    if check_size(size) > 1:
        logging.warning("%s: --sample_batch=%d has no effect here (no per-frame model whose "
                        "calls may be shared); every sample is scored alone", label, size)


def any_size(frame) -> Hashable:
    """FrameCall.key of a model that resizes every frame to one input size itself."""
    del frame
    return 0


def frame_shape(frame) -> Hashable:
    """FrameCall.key of a model that stacks frames at their own size."""
    return np.shape(frame)


def shared_calls(frame_lists: Sequence[Sequence[np.ndarray]],
                 fn: Callable[[List[np.ndarray]], np.ndarray],
                 key: Callable[[np.ndarray], Hashable] = any_size) -> List[np.ndarray]:
    """[fn(frames of sample i)] for each i, computed as fn over the concatenated frames of
    every sample with the same `key(first frame)` (e.g. the frame shape, for a model that
    stacks frames without resizing them to one size), split back by sample.

    `fn` maps a list of frames to one output row per frame (its own batch size decides
    how many go through the network per call)."""
    out: List[Optional[np.ndarray]] = [None] * len(frame_lists)
    groups = {}
    for i, frames in enumerate(frame_lists):
        groups.setdefault(key(frames[0]), []).append(i)
    for members in groups.values():
        joined = [frame for i in members for frame in frame_lists[i]]
        values = np.asarray(fn(joined))
        if len(values) != len(joined):
            raise RuntimeError(f"a shared call gave {len(values)} rows for {len(joined)} frames")
        start = 0
        for i in members:
            out[i] = values[start:start + len(frame_lists[i])]
            start += len(frame_lists[i])
    return out


@dataclasses.dataclass(frozen=True)
class FrameCall:
    """One per-frame model whose calls samples may share.

    name: the key of its rows in the loaded sample's `shared` dict (the family reads
        `ctx.shared.get(name)`, and computes alone when it is absent).
    frames: loaded sample -> the frames the model sees for it, in the order the family
        expects its rows; ValueError (or no frame) leaves the sample out of the shared
        calls: its family's own path scores it, and says why it cannot be.
    fn: a list of frames -> one output row per frame (the model is got inside it, so it
        is built where the stage runs).
    key: frame -> which frames may share a call (any_size or frame_shape).
    """

    name: str
    frames: Callable[[object], Sequence[np.ndarray]]
    fn: Callable[[List[np.ndarray]], object]
    key: Callable[[np.ndarray], Hashable] = any_size


def frame_stage(calls: Sequence[FrameCall], size: int, label: str) -> Optional[BatchStage]:
    """The stage that runs `calls` over `size` loaded samples at a time; None when size
    is 1, or when there is no call (after no_stage's warning, for `label`). A loaded
    sample is a frozen dataclass with a `shared` dict."""
    if not calls:
        return no_stage(size, label)
    return stage_or_none(size, functools.partial(_run_frame_calls, tuple(calls)))


def families_stage(families, size: int, label: str, *args) -> Optional[BatchStage]:
    """frame_stage over the FrameCalls the families give (`family.frame_calls(*args)`,
    where a family has it), each name once."""
    calls = {}
    for fam in families:
        for call in getattr(fam, "frame_calls", lambda *_: ())(*args):
            calls.setdefault(call.name, call)
    return frame_stage(list(calls.values()), size, label)


def _run_frame_calls(calls, items, loadeds) -> List[object]:
    del items
    shared = [dict(loaded.shared) for loaded in loadeds]
    for call in calls:
        usable = []
        for i, loaded in enumerate(loadeds):
            try:
                frames = list(call.frames(loaded))
            except ValueError:
                continue  # scored alone: its own path says why it cannot be
            if frames:
                usable.append((i, frames))
        if len(usable) < 2:
            continue
        values = shared_calls([frames for _, frames in usable], call.fn, key=call.key)
        for (i, _), value in zip(usable, values):
            shared[i][call.name] = value
    return [dataclasses.replace(loaded, shared=s) for loaded, s in zip(loadeds, shared)]


def run_stage(stage: BatchStage, items: Sequence, pending: Sequence
              ) -> List[concurrent.futures.Future]:
    """The futures the group's samples are scored from (done futures of their loads):
    each load's own where it failed or the stage fell back, else one holding the stage's
    loaded value for it, or the stage's bug (the loop records it as an internal error)."""
    ok = [i for i, p in enumerate(pending) if p.exception() is None]
    if len(ok) < 2:
        return list(pending)
    try:
        shared = stage.run([items[i] for i in ok], [pending[i].result() for i in ok])
    except Exception as e:  # pylint: disable=broad-except  (each sample records the bug)
        if errors.full_disk(e) is not None:  # scoring the group's first sample stops the run
            logging.error("--sample_batch stage: the disk is full: %s: %s", type(e).__name__, e)
        elif isinstance(e, family_lib.EXPECTED_ERRORS):
            logging.warning("--sample_batch: scoring these %d samples one at a time: %s: %s",
                            len(ok), type(e).__name__, e)
            return list(pending)
        else:
            logging.error("--sample_batch stage: internal error: %s: %s", type(e).__name__, e)
        shared = [e] * len(ok)
    if len(shared) != len(ok):
        shared = [RuntimeError(f"the --sample_batch stage returned {len(shared)} loaded "
                               f"samples for {len(ok)}")] * len(ok)
    out = list(pending)
    for i, value in zip(ok, shared):
        future = concurrent.futures.Future()
        if isinstance(value, Exception):
            future.set_exception(value)
        else:
            future.set_result(value)
        out[i] = future
    return out
