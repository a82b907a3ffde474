"""The engine's sample loop: every sample evaluated once, appended as soon as it is scored.

A benchmark step hands `run` its samples in order and two functions:

  load(item)      reads the sample's inputs (decode, locate references); raising an
                  input error (InputError, FrameInputError, OSError, ValueError) makes
                  the sample an error row with that message. It runs ahead on background
                  threads while the families score an earlier sample (OpenCV and file
                  reads release the GIL): `decode_workers` (--decode_workers) samples
                  ahead, each on its own thread; 1 reads the next sample meanwhile.
  score(item, loaded) -> SampleScore
                  runs the families (`run_families` sorts their failures).

Resume is keyed by (split, sample id) and, where the step gives `digest(item)`, by the
sample's input digests: a sample whose inputs changed since it was stored is recomputed
(and the log says which inputs). `digest` returns one digest (compared with the stored
`input_digest`) or named digests, e.g. {"generated": ..., "reference": ...}, which the
step's score records with `record_digests` ("generated" is the `input_digest` field, the
others diagnostics "input_digest:<name>"). A benchmark names in them every input a
sample's numbers depend on: generated files, reference files, its annotation rows.

A bug in our own code (anything but an input error) fails that sample with the traceback
in its error field, the run goes on, and `Outcome.internal_errors` tells the runner to
exit 1 at the end. A full disk (ENOSPC, EDQUOT: errors.full_disk) met while a sample is
loaded or scored, e.g. a metric writing a temp file, is neither: it is the machine's, so
the run stops there with errors.DiskFull naming the file (or, where the OSError names
none, the sample being scored), as when the store's own write fails (app_main: exit 2);
the samples stored before it are kept and `--resume` scores the rest. Inputs a sample
was scored on though read only in part are listed, each naming its file, under
diagnostics "input_warnings" (`add_warning`).

Where the loop runs is the executor's choice (benchmarks/common/executor.py): locally,
one sample scored at a time, or on Ray actors (--executor=ray), with the same store and
rows. The local loop scores and stores in sample order whatever `decode_workers` is, and
never holds more than `decode_workers` loads beside the sample being scored (loads
started, running or finished, waiting their turn); the rows do not depend on it. A step
may also share model calls between the next few samples (`batch`, --sample_batch:
benchmarks/common/sample_batch.py): the local loop groups consecutive samples, a Ray
actor the loaded samples waiting on it (benchmarks/common/ray_worker.py).
"""

import collections
import concurrent.futures
import dataclasses
import tempfile
import time
import traceback
from typing import Callable, Dict, Iterable, List, Optional, Sequence

from absl import logging

from benchmarks.common import errors
from benchmarks.common import executor as executor_lib
from benchmarks.common import family as family_lib
from benchmarks.common import progress as progress_lib
from benchmarks.common import sample_batch
from benchmarks.common.errors import InputError
from benchmarks.common.sample_records import (  # noqa: F401  (re-exported)
    DIGEST_PREFIX, GENERATED, INPUT_ERRORS, WARNINGS, add_warning, discard_changed,
    record_digests, stored_digests, warnings_of)
from benchmarks.common.sample_store import Key, SampleStore
from proto import scorecard_pb2

SECONDS = "seconds:"  # diagnostics key prefix: time spent per family
PEAK_HOST_MIB = "peak_host_mib:"  # diagnostics key prefix: a step's peak RSS (peak_memory.py)
PEAK_DEVICE_MIB = "peak_device_mib:"  # ... and its peak CUDA memory allocated
# Prefixes of run-dependent measurements: every comparison of two runs sets them aside.
MEASURED = (SECONDS, PEAK_HOST_MIB, PEAK_DEVICE_MIB)
INTERNAL_ERROR = "internal_error"  # diagnostics key: "1" when the error is our bug
NOT_COVERED = ("not computed (--stored_only): no shard's per_sample_scores.jsonl holds this "
               "sample under these settings (a missing shard, or its inputs changed since)")


@dataclasses.dataclass(frozen=True)
class SampleRef:
    """Who a sample is: its id, split and scene (what an error row records)."""

    sample_id: str
    split: str = ""
    scene: str = ""

    @property
    def key(self) -> Key:
        return (self.split, self.sample_id)


@dataclasses.dataclass
class Outcome:
    """The samples of one step, in the order given, and what the loop saw."""

    samples: List[scorecard_pb2.SampleScore]
    resumed: int = 0
    recomputed_changed: List[str] = dataclasses.field(default_factory=list)
    internal_errors: List[str] = dataclasses.field(default_factory=list)  # "split/id"


def error_sample(ref: SampleRef, error: str, internal: bool = False
                 ) -> scorecard_pb2.SampleScore:
    sample = scorecard_pb2.SampleScore(sample_id=ref.sample_id, split=ref.split,
                                       scene=ref.scene, error=error)
    if internal:
        sample.diagnostics[INTERNAL_ERROR] = "1"
    return sample


def is_internal_error(sample: scorecard_pb2.SampleScore) -> bool:
    return sample.diagnostics.get(INTERNAL_ERROR) == "1"


def _bug_text(where: str, e: BaseException) -> str:
    return (f"internal error in {where} (a worldeval bug; please report it): "
            f"{type(e).__name__}: {e}\n" + "".join(traceback.format_exception(e)))


def run_families(ctx, families: Sequence[family_lib.Family],
                 sample: scorecard_pb2.SampleScore) -> Dict[str, Optional[float]]:
    """Runs each family on `ctx`; returns the raw columns they filled.

    Expected failures become the family's per-metric reasons in `sample.unavailable`;
    a bug raises out of here (the loop records it as the sample's internal error), and so
    does a full disk, as raised (the loop stops the run on it).
    """
    columns: Dict[str, Optional[float]] = {}
    for fam in families:
        start = time.perf_counter()
        try:
            result = fam.compute(ctx)
        except family_lib.EXPECTED_ERRORS + tuple(fam.expected_errors) as e:
            if errors.full_disk(e) is not None:
                raise
            logging.warning("%s: %s cannot score it: %s", ctx.sample_id, fam.name, e)
            result = family_lib.FamilyResult(
                {}, {m: f"{fam.name}: {type(e).__name__}: {e}" for m in fam.metric_ids})
        except Exception as e:  # pylint: disable=broad-except  (re-raised with context)
            if errors.full_disk(e) is not None:
                raise
            raise _FamilyBug(_bug_text(f"family {fam.name}", e)) from e
        sample.diagnostics[SECONDS + fam.name] = f"{time.perf_counter() - start:.4f}"
        columns.update({k: v for k, v in result.columns.items() if v is not None})
        ctx.earlier.update(columns)
        sample.unavailable.update(result.unavailable)
        sample.diagnostics.update(result.diagnostics)
        for name, blob in result.attachments.items():
            sample.attachments[name] = blob
    return columns


class _FamilyBug(Exception):
    """A family raised something that is not an expected per-sample failure."""


def run(items: Sequence, ref: Callable[[object], SampleRef], store: SampleStore,
        load: Callable, score: Callable, label: str,
        digest: Optional[Callable[[object], object]] = None,
        on_sample: Optional[Callable[[object, scorecard_pb2.SampleScore], None]] = None,
        prefetch: bool = True, decode_workers: int = 1,
        batch: Optional[sample_batch.BatchStage] = None) -> Outcome:
    """Scores `items` not already in `store`; see the module docstring.

    `on_sample(item, sample)` runs after each newly scored sample is stored (e.g. to
    append the official output file's row); resumed samples are the caller's to write.
    `prefetch=False` loads each sample when it is scored (no threads, `decode_workers`
    unused, and `batch` too); so do --stored_only runs, which load nothing.

    Raises:
      InputError: `decode_workers` is not a whole number >= 1 (the message names
        --decode_workers).
    """
    if isinstance(decode_workers, bool) or not isinstance(decode_workers, int) or \
            decode_workers < 1:
        raise InputError("--decode_workers", "a whole number of threads, 1 or more",
                         repr(decode_workers))
    outcome = Outcome(samples=[], resumed=store.resumed)
    outcome.recomputed_changed.extend(discard_changed(items, ref, store, digest, label))
    todo = [item for item in items if ref(item).key not in store]
    outcome.resumed = sum(1 for item in items if ref(item).key in store)
    if outcome.resumed:
        logging.info("%s: resuming, %d samples already scored", label, outcome.resumed)
    prefetch = prefetch and not store.stored_only
    progress = progress_lib.Progress(label, len(todo))

    def emit(item, sample):
        r = ref(item)
        if is_internal_error(sample):
            outcome.internal_errors.append(f"{r.split}/{r.sample_id}")
        store.append(sample)
        progress.update(failed=bool(sample.error))

    remote = executor_lib.current()
    if remote is not None and todo and not store.stored_only:
        executor_lib.run_on(remote, todo, [ref(item) for item in todo], load, score, label,
                            emit, on_sample, ahead=decode_workers if prefetch else 0,
                            batch=batch if prefetch else None)
    else:
        _run_local(todo, ref, load, score, label, emit, on_sample,
                   decode_workers if prefetch else 0, store.stored_only, progress.interactive,
                   batch if prefetch else None)
    store.put_in_order(ref(item).key for item in items)
    by_key = {(s.split, s.sample_id): s for s in store.samples()}
    outcome.samples = [by_key[ref(item).key] for item in items if ref(item).key in by_key]
    return outcome


def _run_local(todo, ref, load, score, label, emit, on_sample, ahead, stored_only,
               interactive, batch=None) -> None:
    """The local executor: one sample scored at a time, in order, while the loads of the
    next `ahead` samples run on `ahead` threads (0: each loaded when it is scored).

    Sample i+ahead is submitted only once sample i-1 is scored and stored, so at most
    `ahead` loads wait beside the one being scored (back-pressure). With a `batch` stage,
    at least batch.size - 1 load ahead, and each group of batch.size loaded samples goes
    through the stage together before its samples are scored in turn."""
    if batch is not None:
        ahead = max(ahead, batch.size - 1)
    pool = (concurrent.futures.ThreadPoolExecutor(max_workers=ahead, thread_name_prefix="load")
            if ahead else None)
    pending = collections.deque()  # futures of todo[i], todo[i+1], ... in order
    ready = collections.deque()  # the current group's futures, after the stage
    submitted = 0
    try:
        for i, item in enumerate(todo):
            r = ref(item)
            if not interactive:
                logging.info("%s [%d/%d] %s", label, i + 1, len(todo), r.sample_id)
            while pool is not None and submitted < min(len(todo), i + 1 + ahead):
                pending.append(pool.submit(load, todo[submitted]))
                submitted += 1
            if pool is not None and not ready:
                group = [pending.popleft() for _ in range(min(len(pending),
                                                                batch.size if batch else 1))]
                if batch is not None:
                    concurrent.futures.wait(group)
                    group = sample_batch.run_stage(batch, todo[i:i + len(group)], group)
                ready.extend(group)
            current = ready.popleft() if pool is not None else None
            sample = (evaluate_one(item, r, load, score, current) if not stored_only
                      else error_sample(r, NOT_COVERED))
            emit(item, sample)
            if on_sample is not None:
                on_sample(item, sample)
    finally:
        if pool is not None:  # an interrupted run drops the loads not yet started
            pool.shutdown(wait=True, cancel_futures=True)


def evaluate_one(item, ref: SampleRef, load, score, pending=None) -> scorecard_pb2.SampleScore:
    """One sample scored (or its error row); `pending`: its load already submitted.

    Raises:
      errors.DiskFull: the disk filled up while the sample was loaded or scored.
    """
    start = time.perf_counter()
    try:
        loaded = pending.result() if pending is not None else load(item)
        sample = score(item, loaded)
    except errors.DiskFull:
        raise
    except _FamilyBug as e:
        _stop_on_full_disk(ref, e)
        logging.error("%s: %s", ref.sample_id, str(e).splitlines()[0])
        return error_sample(ref, str(e), internal=True)
    except INPUT_ERRORS as e:
        _stop_on_full_disk(ref, e)
        logging.warning("%s failed: %s", ref.sample_id, e)
        return error_sample(ref, str(e))
    except Exception as e:  # pylint: disable=broad-except  (our bug: recorded, exit 1)
        _stop_on_full_disk(ref, e)
        logging.error("%s: internal error: %s: %s", ref.sample_id, type(e).__name__, e)
        return error_sample(ref, _bug_text("the sample loop", e), internal=True)
    if not sample.seconds:
        sample.seconds = round(time.perf_counter() - start, 4)
    return sample


def _stop_on_full_disk(ref: SampleRef, e: BaseException) -> None:
    """errors.DiskFull, raised from `e`, when `e` is (or was raised from) a full disk: the
    file it names, or else the sample whose scoring wrote it and where that may be."""
    full = errors.full_disk(e)
    if full is None:
        return
    where = full.filename or (
        f"a file written while scoring sample {ref.split}/{ref.sample_id} (on the disk "
        f"of --output_dir or of the temp folder {tempfile.gettempdir()})")
    raise errors.DiskFull(full.errno, full.strerror or str(full), str(where)) from e


def internal_errors_of(samples: Iterable[scorecard_pb2.SampleScore]) -> List[str]:
    """"split/id" of every sample whose error is a bug of ours (resumed runs included)."""
    return [f"{s.split}/{s.sample_id}" for s in samples if is_internal_error(s)]
