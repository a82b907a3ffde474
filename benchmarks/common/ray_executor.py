"""--executor=ray: the shared sample loop on Ray actors, with the local loop's store and rows.

One actor per GPU (or per CPU slot, or --num_workers of them) receives the step's `load`
and `score` functions once, with the families they close over, and keeps them for the
whole step. A family holds its model as a recipe (benchmarks/common/model_recipe.py):
what is shipped is the checkpoint paths the driver resolved, never the weights (the
driver loads none in a Ray run), and each actor loads each model once, on its own
device (Ray sets CUDA_VISIBLE_DEVICES per actor). The driver hands out
samples with back-pressure, at most 1 + --decode_workers per actor (1 when the step
loads nothing ahead), so decoded frames stay on the actors and never pile up: an actor
reads and decodes its next samples on threads while it scores one (scoring holds a
lock: one sample at a time per actor, as locally; with --sample_batch the loaded samples
waiting on an actor go through the step's stage together, up to that many, and at least
that many are in flight per actor: benchmarks/common/ray_worker.py); each result is
streamed back and appended to the SampleStore as it arrives (the loop puts the file in sample order at the end), so
--resume works across executors. A sample whose actor died (a crash, a lost node, a
killed process) is given to another actor, alone; a death while it ran alone counts,
and after --max_sample_retries+1 of those it is recorded as an error row naming the
deaths. (Every sample on a dying actor dies with it, and any of them may be the cause:
each is retried alone, so a sample that kills its worker never uses up its neighbours'
retries.) A sample is never stored twice. A full disk on an actor (sample_loop.evaluate_one
raises errors.DiskFull) stops the run as locally: the driver raises it (exit 2), keeping
what was stored.

`ray` is imported only here, and only when --executor=ray asks for it: a local run never
imports it. With --ray_address empty Ray starts in this process (all local CPUs and
GPUs); `auto` or host:port joins a running cluster, whose workers must import worldeval
and its locked packages at the same paths (the same checkout, or the same image).
"""

import json
import os
import re
import sys
from typing import Dict, List

from absl import logging

from benchmarks.common import executor as executor_lib
from benchmarks.common import ray_dispatch
from benchmarks.common import ray_worker
from benchmarks.common.errors import InputError

SLOT_DEATHS = ray_dispatch.SLOT_DEATHS
WORKER_LOST = ray_dispatch.WORKER_LOST  # diagnostics key: how many actors died on a sample


def install(common) -> None:
    """Installs the executor `common` (a flags.CommonConfig) asks for in this process:
    None (the local loop), Ray, or local worker processes (process_executor.py)."""
    chosen = None
    if common.executor == "ray":
        check_device(common)
        chosen = RayExecutor(common)
    elif common.executor == "processes":
        # Imported here: only a --executor=processes run needs it (and cloudpickle).
        try:
            from benchmarks.common import process_executor  # pylint: disable=C0415
        except ImportError as e:  # a binary built without //benchmarks/common:process_executor
            raise InputError("--executor=processes", "benchmarks.common.process_executor "
                             "and cloudpickle in this binary", str(e)) from e
        chosen = process_executor.ProcessExecutor(common)
    executor_lib.install(chosen)


def _ray():
    try:
        import ray  # pylint: disable=import-outside-toplevel  (only for --executor=ray)
    except ImportError as e:  # a binary built without //benchmarks/common:ray_runtime
        raise InputError("--executor=ray", "the ray package in this binary (the runners "
                         "carry //benchmarks/common:ray_runtime)", str(e)) from e
    return ray


_CUDA_INDEX = re.compile(r"^cuda:([0-9]+)$")


def check_device(common) -> None:
    """InputError (exit 2) for a --device no Ray actor can use: each actor sees only the
    GPU Ray gave it, as cuda:0."""
    index = _CUDA_INDEX.match(common.device or "")
    if index and int(index.group(1)) > 0:
        raise InputError("--device", "auto, cpu, cuda or cuda:0 with --executor=ray (Ray "
                         "gives each actor its own GPU, which it sees as cuda:0; choose the "
                         "GPUs with CUDA_VISIBLE_DEVICES or the cluster's resources)",
                         common.device)
    if common.device.startswith("cuda") and common.gpus_per_worker == 0:
        raise InputError("--gpus_per_worker", "more than 0 with --device=" + common.device,
                         "0 (the actors would see no GPU)")


class RayExecutor:
    """Runs `sample_loop.run`'s samples on Ray actors (see the module docstring)."""

    def __init__(self, common):
        self.address = common.ray_address
        self.gpus_per_worker = common.gpus_per_worker
        self.num_workers = common.num_workers
        self.max_retries = common.max_sample_retries
        self.placement_timeout = common.ray_placement_timeout_s
        self.decode_workers = common.decode_workers
        self._record: Dict[str, str] = {"executor": "ray"}
        self.actors: List[object] = []  # the current step's actors

    def connect(self):
        """Ray, initialized (joined or started as the flags say) when it was not yet."""
        ray = _ray()
        if not ray.is_initialized():
            if not self.address:
                # Ray's workers are fresh interpreters: give them this process's imports.
                os.environ["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
            ray.init(address=self.address or None, log_to_driver=True)
        return ray

    def _plan(self, ray, todo_count: int):
        """(number of actors, CPUs and GPUs per actor) for this cluster and these flags;
        InputError (exit 2) when the actors' GPUs cannot all be placed (they would wait
        forever). More actors than CPUs share them (a fraction of a CPU each)."""
        resources = ray.cluster_resources()
        gpus = self.gpus_per_worker
        if gpus is None:
            gpus = 1.0 if resources.get("GPU", 0) > 0 else 0.0
        workers = self.num_workers
        if workers is None:
            workers = (int(resources.get("GPU", 0) // gpus) if gpus > 0
                       else int(resources.get("CPU", 1)))
        workers = max(1, min(workers, todo_count))
        if gpus > 0 and workers * gpus > resources.get("GPU", 0):
            raise InputError("--num_workers/--gpus_per_worker", f"at most "
                             f"{resources.get('GPU', 0):g} GPUs in all (the Ray cluster's)",
                             f"{workers} workers x {gpus:g} GPUs")
        cpus = min(1.0, resources.get("CPU", 1) / workers)
        nodes = [n for n in ray.nodes() if n.get("Alive")]
        summary = {k: v for k, v in sorted(resources.items())
                   if k in ("CPU", "GPU", "memory") or k.startswith("accelerator_type:")}
        summary["nodes"] = len(nodes)
        self._record.update({
            "ray_address": self.address or "local",
            "ray_workers": str(workers),
            "ray_gpus_per_worker": f"{gpus:g}",
            "ray_cluster": json.dumps(summary, sort_keys=True),
        })
        return workers, cpus, gpus

    def record(self) -> Dict[str, str]:
        return dict(self._record)

    def device(self, flag: str) -> str:
        """The device the actors' models run on for --device=`flag`: "auto" is cuda when
        each actor gets a GPU (not what the driver has)."""
        if flag not in ("", "auto"):
            return flag
        ray = self.connect()
        gpus = self.gpus_per_worker
        if gpus is None:
            gpus = 1.0 if ray.cluster_resources().get("GPU", 0) > 0 else 0.0
        return "cuda" if gpus > 0 else "cpu"

    def evaluate(self, todo, refs, load, score, label, emit, ahead: int = 1,
                 batch=None) -> None:
        ray = self.connect()
        workers, cpus, gpus = self._plan(ray, len(todo))
        in_flight = max(1 + max(0, ahead), batch.size if batch is not None else 1)
        logging.info("%s: %d samples on %d Ray actors (%g GPU each, %d in flight each%s)",
                     label, len(todo), workers, gpus, in_flight,
                     f", --sample_batch={batch.size}" if batch is not None else "")
        functions = ray.put((load, score, batch))  # one pickle: shared models stay shared
        remote = ray.remote(ray_worker.Worker).options(num_cpus=cpus, num_gpus=gpus, max_restarts=0,
                                             max_concurrency=in_flight)
        dispatch = ray_dispatch.Dispatch(ray, self, lambda: remote.remote(functions), workers, todo, refs,
                             emit, label, in_flight)
        try:
            self._await_placement(ray, cpus, gpus)
            dispatch.run()
        finally:
            for actor in self.actors:
                ray.kill(actor, no_restart=True)
            self.actors = []


    def _await_placement(self, ray, cpus: float, gpus: float) -> None:
        """InputError (exit 2) when no actor starts within --ray_placement_timeout_s (its
        CPUs or GPUs are held by other work: it would wait forever)."""
        pings = [actor.ready.remote() for actor in self.actors]
        ready, _ = ray.wait(pings, num_returns=1, timeout=self.placement_timeout)
        if not ready:
            free = {k: v for k, v in sorted(ray.available_resources().items())
                    if k in ("CPU", "GPU")}
            raise InputError("--ray_placement_timeout_s", f"a Ray actor ({cpus:g} CPU, "
                             f"{gpus:g} GPU) started within {self.placement_timeout:g} s",
                             f"none did; the cluster has free {free or 'nothing'} (lower "
                             "--num_workers or --gpus_per_worker, or free the cluster)")
