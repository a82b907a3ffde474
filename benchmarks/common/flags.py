"""The absl flags every benchmark runner shares, and the config read from them.

Flags are read only in `common_config()`, which a runner's main calls once; libraries
take the resulting `CommonConfig`.
"""

import dataclasses
import os
import re
from typing import Optional

from absl import flags

from benchmarks.common import ray_executor
from benchmarks.common import shards
from benchmarks.common.errors import InputError

OUTPUT_DIR = flags.DEFINE_string(
    "output_dir", None,
    "Directory for scorecard.json, per_sample_scores.jsonl, raw_metric_table.jsonl, "
    "artifact_manifest.json and the benchmark's official output files. Relative paths "
    "are taken from where you ran the command. Default: worldeval_outputs/<benchmark>/<model>.")
DEVICE = flags.DEFINE_string(
    "device", "auto", "Torch device for model-based metrics: 'auto', 'cpu', 'cuda', 'cuda:1'.")
LIMIT = flags.DEFINE_integer(
    "limit", None, "Evaluate at most this many samples (in sorted order); for quick checks. "
    "A limited run is never leaderboard-eligible.", lower_bound=1)
METRICS = flags.DEFINE_list(
    "metrics", None, "Comma-separated metric ids to compute (default: all of the benchmark's).")
RESUME = flags.DEFINE_boolean(
    "resume", False, "Keep the samples already in --output_dir/per_sample_scores.jsonl "
    "(computed with the same settings) and evaluate only the rest.")
CHECKPOINT_DIR = flags.DEFINE_string(
    "checkpoint_dir", None, "Directory searched for model checkpoints before the "
    "Hugging Face cache.")
OFFLINE = flags.DEFINE_boolean(
    "offline", any(os.environ.get(v, "").lower() in ("1", "true", "yes")
                   for v in ("WORLDEVAL_OFFLINE", "HF_HUB_OFFLINE")),
    "Never download: a checkpoint not found locally makes its metric unavailable. "
    "Default: on when WORLDEVAL_OFFLINE or HF_HUB_OFFLINE is 1.")
NUM_SHARDS = flags.DEFINE_integer(
    "num_shards", 1, "Split the samples into this many shards (a deterministic partition by "
    "sample name; stable when samples are added) and evaluate only --shard_index; combine "
    "the shards' output dirs with `worldeval merge`.", lower_bound=1)
SHARD_INDEX = flags.DEFINE_integer(
    "shard_index", 0, "Which shard this run evaluates: 0..--num_shards-1 (e.g. a Slurm array "
    "task id).", lower_bound=0)
STORED_ONLY = flags.DEFINE_boolean(
    "stored_only", False, "Compute no sample: write the outputs from the samples already in "
    "--output_dir/per_sample_scores.jsonl and record every other sample as not covered "
    "(what `worldeval merge` runs after combining the shards' stores).")

EXECUTOR = flags.DEFINE_enum(
    "executor", "local", ["local", "processes", "ray"], "Where the samples are scored: "
    "'local' (this process, one at a time), 'processes' (--num_workers local worker "
    "processes, no Ray: for CPU-bound benchmarks on one machine; --device=auto is cpu "
    "there) or 'ray' (one Ray actor per GPU or CPU slot). Same outputs, resumable across "
    "executors.")
RAY_ADDRESS = flags.DEFINE_string(
    "ray_address", "", "--executor=ray: the cluster to join, 'auto' (the running one) or "
    "host:port; empty starts a Ray on this machine.")
GPUS_PER_WORKER = flags.DEFINE_float(
    "gpus_per_worker", None, "--executor=ray: GPUs each actor reserves (fractions share a "
    "GPU). Default: 1 when the Ray cluster has CUDA GPUs, else 0.", lower_bound=0)
NUM_WORKERS = flags.DEFINE_integer(
    "num_workers", None, "--executor=ray: how many actors. Default: one per GPU (with "
    "--gpus_per_worker > 0), else one per CPU of the cluster. --executor=processes: how "
    "many worker processes. Default: one per CPU of this machine. Never more than a step "
    "has samples.", lower_bound=1)
MAX_SIDE = flags.DEFINE_integer(
    "max_side", None, "Shrink every decoded frame, as it is decoded, so that its longest "
    "side is at most this (INTER_AREA, never upscaled): bounds a long high-resolution "
    "clip's memory, but changes values, so the run is marked not official. Unset: each "
    "benchmark's official rule (native resolution; MemoBench: 640).", lower_bound=1)
DECODE_WORKERS = flags.DEFINE_integer(
    "decode_workers", 1, "--executor=local: how many samples' inputs are read and decoded "
    "ahead of the one being scored, each on its own thread; 1 reads the next one meanwhile. "
    "Samples are still scored and stored in order, at most this many held ahead, so "
    "memory stays bounded. Never changes a value. (Not the threads that decode one frame "
    "folder: $WORLDEVAL_FRAME_THREADS.)", lower_bound=1)
SAMPLE_BATCH = flags.DEFINE_integer(
    "sample_batch", 1, "How many samples share each call of a per-frame model, where the "
    "benchmark's official protocol scores frames independently (MiraBench, MemoBench Step 1 "
    "and WorldScore; VMBench has no such model and says so). Locally consecutive samples; "
    "on Ray those loaded and waiting on an actor. Values move by float rounding only "
    "(tested within 1e-5); 1 (the default) calls the model for each sample alone.",
    lower_bound=1)
MAX_SAMPLE_RETRIES = flags.DEFINE_integer(
    "max_sample_retries", 2, "--executor=ray or processes: how many times a sample whose "
    "worker died is given to another one before it is recorded as an error row.",
    lower_bound=0)
RAY_PLACEMENT_TIMEOUT = flags.DEFINE_float(
    "ray_placement_timeout_s", 600, "--executor=ray: how long to wait for the first actor "
    "to start (the cluster may have no free CPU or GPU of the kind each asks for) before "
    "the run stops (exit 2) saying what was asked for and what is free.", lower_bound=0)

@dataclasses.dataclass(frozen=True)
class CommonConfig:
    """Settings shared by every runner (see the flags of the same names)."""

    output_dir: Optional[str] = None
    device: str = "auto"
    limit: Optional[int] = None
    metrics: Optional[tuple] = None
    resume: bool = False
    checkpoint_dir: Optional[str] = None
    offline: bool = False
    num_shards: int = 1
    shard_index: int = 0
    stored_only: bool = False
    executor: str = "local"
    ray_address: str = ""
    gpus_per_worker: Optional[float] = None
    num_workers: Optional[int] = None
    max_sample_retries: int = 2
    ray_placement_timeout_s: float = 600.0
    max_side: Optional[int] = None
    decode_workers: int = 1
    sample_batch: int = 1


_DEVICE = re.compile(r"^(auto|cpu|mps|cuda(:[0-9]+)?)$")


def check_device(device: str) -> str:
    """The --device value, or InputError (exit 2) before any work when it names none."""
    if not _DEVICE.match(device or ""):
        raise InputError("--device", "auto, cpu, cuda, cuda:N or mps", repr(device))
    return device


def common_config() -> CommonConfig:
    """Reads the shared flags (call from a main only); InputError for unusable values.

    It also installs the executor the flags ask for (benchmarks/common/ray_executor.py),
    which every runner's sample loop then uses."""
    check_device(DEVICE.value)
    shards.check(NUM_SHARDS.value, SHARD_INDEX.value)
    config = CommonConfig(
        output_dir=OUTPUT_DIR.value,
        device=DEVICE.value,
        limit=LIMIT.value,
        metrics=tuple(METRICS.value) if METRICS.value else None,
        resume=RESUME.value,
        checkpoint_dir=CHECKPOINT_DIR.value,
        offline=OFFLINE.value,
        num_shards=NUM_SHARDS.value,
        shard_index=SHARD_INDEX.value,
        stored_only=STORED_ONLY.value,
        executor=EXECUTOR.value,
        ray_address=RAY_ADDRESS.value,
        gpus_per_worker=GPUS_PER_WORKER.value,
        num_workers=NUM_WORKERS.value,
        max_sample_retries=MAX_SAMPLE_RETRIES.value,
        ray_placement_timeout_s=RAY_PLACEMENT_TIMEOUT.value,
        max_side=MAX_SIDE.value,
        decode_workers=DECODE_WORKERS.value,
        sample_batch=SAMPLE_BATCH.value,
    )
    ray_executor.install(config)
    return config


# The shared flags every runner records in RunInfo.flags (after its own).
RECORDED = ("output_dir", "device", "limit", "metrics", "resume", "checkpoint_dir", "offline",
            "num_shards", "shard_index", "stored_only", "executor", "ray_address",
            "gpus_per_worker", "num_workers", "max_sample_retries", "ray_placement_timeout_s",
            "decode_workers", "sample_batch", "max_side")


def flag_values_for_record(names) -> dict:
    """The current values of the named flags as strings, for RunInfo.flags."""
    values = {}
    for name in names:
        value = flags.FLAGS[name].value
        if value is not None:
            values[name] = ",".join(value) if isinstance(value, list) else str(value)
    return values
