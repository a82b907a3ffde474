"""--executor=processes: the shared sample loop on N local worker processes, no Ray.

For a weight-free, CPU-bound step (Physics-IQ's OpenCV arithmetic) on one machine: what
Ray gives there (a pool of processes, each scoring its own samples) without Ray's
start-up. Each step starts --num_workers processes (default os.cpu_count(), never more
than the step has samples) from a spawn context (a fresh interpreter: no forked CUDA
context or lock held by a thread of the driver), with this process's sys.path, so they
import worldeval and its locked packages from the same files. Each receives the step's
`(load, score, batch)` once, pickled with cloudpickle as Ray ships them (shared models
stay one object), and scores its samples as a Ray actor does (ray_worker.Worker: loads
on threads while one sample is scored, --sample_batch groups of the loaded samples).

The driver is ray_dispatch.Dispatch, the one --executor=ray uses, on `_Pool` below (the
few Ray calls it makes, answered by pipes and process sentinels): the same back-pressure
(at most 1 + --decode_workers samples per worker, so decoded frames stay in the workers
and never pile up), each row emitted and stored as it arrives (--resume works across
executors), a sample whose worker process died given to another one alone and, after
--max_sample_retries+1 deaths of its own, recorded as an error row naming the death (its
exit code or signal), a dead worker replaced (not after ray_dispatch.SLOT_DEATHS deaths
in a row), and errors.DiskFull on a worker stopping the run as locally (exit 2).

Devices: --device=auto means cpu (each worker would otherwise load its own copy of every
model onto the same GPU; the GPU executor is --executor=ray, one actor per GPU); an
explicit --device=cuda[:N] is honoured, every worker then using that device.
"""

import multiprocessing
import multiprocessing.connection
import os
import pickle
import queue
import signal
import struct
import threading
import types
from concurrent import futures
from typing import Dict, List, Optional

import cloudpickle

from benchmarks.common import ray_dispatch
from benchmarks.common import ray_worker

WORKER_LOST = ray_dispatch.WORKER_LOST
_STOP = b""  # the message that ends a worker once its calls are answered
_ID = struct.Struct("<Q")  # each call's id, ahead of its pickled (item, ref)


class WorkerDied(Exception):
    """The worker process ended (crashed, killed, os._exit) while the call was on it."""


class WorkerError(Exception):
    """The worker raised instead of answering (a DiskFull, an item that did not unpickle):
    `cause` is its exception, as Ray's RayTaskError carries it."""

    def __init__(self, cause: BaseException):
        super().__init__(f"{type(cause).__name__}: {cause}")
        self.cause = cause


# The names ray_dispatch.Dispatch catches, as `ray.exceptions` spells them.
_EXCEPTIONS = types.SimpleNamespace(RayActorError=WorkerDied, WorkerCrashedError=WorkerDied,
                                    ObjectLostError=WorkerDied, RayError=WorkerError)


class ProcessExecutor:
    """Runs `sample_loop.run`'s samples on local worker processes (the module docstring)."""

    worker_noun = "worker process"  # how ray_dispatch's messages name a worker

    def __init__(self, common):
        self.num_workers = common.num_workers or os.cpu_count() or 1
        self.max_retries = common.max_sample_retries
        self.actors: List["_Worker"] = []  # the current step's workers (Dispatch's name)

    def record(self) -> Dict[str, str]:
        return {"executor": "processes", "workers": str(self.num_workers)}

    def device(self, flag: str) -> str:
        return "cpu" if flag in ("", "auto") else flag

    def evaluate(self, todo, refs, load, score, label, emit, ahead: int = 1,
                 batch=None) -> None:
        in_flight = max(1 + max(0, ahead), batch.size if batch is not None else 1)
        pool = _Pool(cloudpickle.dumps((load, score, batch)), in_flight)
        workers = max(1, min(self.num_workers, len(todo)))
        try:
            dispatch = ray_dispatch.Dispatch(pool, self, pool.start, workers, todo, refs,
                                             emit, label, in_flight)
            dispatch.run()
        finally:
            for worker in self.actors:
                worker.close()
            self.actors = []


class _Call:
    """One sample on one worker: its serialized row or the error, once answered."""

    def __init__(self, worker: "_Worker"):
        self.worker = worker
        self.row: Optional[bytes] = None
        self.error: Optional[Exception] = None

    @property
    def done(self) -> bool:
        return self.row is not None or self.error is not None


class _Pool:
    """What ray_dispatch.Dispatch asks of `ray`, for local worker processes."""

    exceptions = _EXCEPTIONS

    def __init__(self, functions: bytes, in_flight: int):
        self.functions, self.in_flight = functions, in_flight
        self.context = multiprocessing.get_context("spawn")

    def start(self) -> "_Worker":
        return _Worker(self.context, self.functions, self.in_flight)

    def wait(self, calls: List[_Call], num_returns: int = 1):
        """(answered calls, the rest): blocks until at least one is answered (or lost)."""
        del num_returns
        while True:
            done = [c for c in calls if c.done]
            if done:
                return done, [c for c in calls if not c.done]
            watched = {}
            for worker in {c.worker for c in calls}:
                watched[worker.conn] = watched[worker.process.sentinel] = worker
            for ready in multiprocessing.connection.wait(list(watched)):
                watched[ready].receive()

    @staticmethod
    def get(call: _Call) -> bytes:
        if call.error is not None:
            raise call.error
        return call.row

    @staticmethod
    def kill(worker: "_Worker", no_restart: bool = True) -> None:
        del no_restart
        worker.kill()


class _Worker:
    """The driver's handle on one worker process: its pipe, its unanswered calls."""

    def __init__(self, context, functions: bytes, in_flight: int):
        self.conn, child = context.Pipe(duplex=True)
        self.process = context.Process(target=serve, args=(child, in_flight), daemon=True,
                                       name="worldeval-worker")
        self.process.start()
        child.close()
        self.calls: Dict[int, _Call] = {}
        self.next_id = 0
        self.closed = False
        # A sender thread: the driver never blocks on a pipe while a worker starts.
        self.outbox: "queue.Queue[Optional[bytes]]" = queue.Queue()
        self.sender = threading.Thread(target=self._send_all, daemon=True)
        self.sender.start()
        self.outbox.put(functions)
        self.evaluate = types.SimpleNamespace(remote=self._submit)  # Dispatch's call

    def _send_all(self) -> None:
        while True:
            message = self.outbox.get()
            if message is None:
                return
            try:
                self.conn.send_bytes(message)
            except (OSError, ValueError):  # the worker is gone: receive() sees it
                return

    def _submit(self, item, ref) -> _Call:
        call = _Call(self)
        self.next_id += 1
        self.calls[self.next_id] = call
        if self.closed:
            call.error = WorkerDied(self.death)
        else:
            self.outbox.put(_ID.pack(self.next_id) + cloudpickle.dumps((item, ref)))
        return call

    def receive(self) -> None:
        """Takes the answers waiting on the pipe; the process's end loses the rest."""
        while not self.closed:
            try:
                if not self.conn.poll():
                    if self.process.exitcode is None:
                        return
                    break  # ended, and every answer it sent has been read
                call_id, ok, payload = pickle.loads(self.conn.recv_bytes())
            except (EOFError, OSError):
                break
            call = self.calls.pop(call_id, None)
            if call is not None:
                call.row, call.error = (payload, None) if ok else (None, WorkerError(payload))
        self._lose_all()

    def _lose_all(self) -> None:
        if not self.closed:
            self.process.join(timeout=30)  # its pipe closed: it is exiting, if not gone
            code = self.process.exitcode
            cause = (f"killed by {signal.Signals(-code).name}" if code is not None and code < 0
                     else f"exit code {code}" if code is not None else "its pipe closed")
            self.death = f"worker process {self.process.pid} ended ({cause})"
            self.closed = True
            self.outbox.put(None)
            self.conn.close()
        for call in self.calls.values():
            call.error = WorkerDied(self.death)
        self.calls.clear()

    def kill(self) -> None:
        if self.process.exitcode is None:
            self.process.kill()
        self._lose_all()

    def close(self) -> None:
        """Ends the worker: asked to stop when it is idle, killed when it is not."""
        if not self.closed and not self.calls:
            self.outbox.put(_STOP)
            self.process.join(timeout=30)
        self.kill()


def serve(conn, in_flight: int) -> None:
    """A worker process's main: the step's functions, then one call per message, each on
    a thread (at most `in_flight` at once, as a Ray actor's max_concurrency)."""
    worker = ray_worker.Worker(cloudpickle.loads(conn.recv_bytes()))
    sending = threading.Lock()

    def run(call_id: int, message: bytes) -> None:
        try:
            item, ref = cloudpickle.loads(message)
            reply = (call_id, True, worker.evaluate(item, ref))
        except BaseException as e:  # pylint: disable=broad-except  (the driver sorts it)
            reply = (call_id, False, _picklable(e))
        with sending:
            conn.send_bytes(pickle.dumps(reply))

    with futures.ThreadPoolExecutor(max_workers=in_flight) as threads:
        while True:
            try:
                message = conn.recv_bytes()
            except EOFError:  # the driver is gone
                break
            if message == _STOP:
                break
            (call_id,) = _ID.unpack_from(message)
            threads.submit(run, call_id, message[_ID.size:])
    conn.close()


def _picklable(e: BaseException) -> BaseException:
    """`e` when it survives pickling (DiskFull does: an OSError's errno, strerror,
    filename), else a RuntimeError with its type and text."""
    try:
        pickle.loads(pickle.dumps(e))
        return e
    except Exception:  # pylint: disable=broad-except
        return RuntimeError(f"{type(e).__name__}: {e}")
