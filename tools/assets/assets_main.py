"""Asset plans and verified checkpoint downloads for a benchmark.

    ./bazelw run //tools:assets -- plan --benchmark=memobench [--checkpoint_dir=DIR]
    ./bazelw run //tools:assets -- plan --benchmark=all
    ./bazelw run //tools:assets -- fetch --benchmark=memobench [--metrics=A,B] [--cache_dir=DIR]

plan: datasets, checkpoints, services and variables with sizes and licences, what is
already here, and the next commands (never downloads). fetch: the checkpoints of the
metrics worldeval computes (or of --metrics), from the Hugging Face hub at the pinned
revision (HF_ENDPOINT or --endpoint) or their URL, sha256-checked, resumable, never
overwriting: into the Hugging Face / torch caches, or DIR/<name>/<file> with --cache_dir
(then pass --checkpoint_dir=DIR to runners and preflight).
Exit codes: 0 done, 1 some checkpoint not fetched, 2 bad usage (an unknown subcommand,
benchmark or metric id lists the valid ones).
"""

import os
import sys

from absl import app
from absl import flags

from benchmarks.common import runtime_profiles
from metrics import cli_support
from tools.assets import fetch
from tools.assets import plan
from tools.catalog import catalog_lib

SUBCOMMANDS = ("plan", "fetch")

BENCHMARK = flags.DEFINE_string(
    "benchmark", None, "The benchmark id, e.g. memobench ('all' for plan: every catalog entry).")
METRICS = flags.DEFINE_list(
    "metrics", None, "fetch: only the checkpoints of these metric ids (default: those of "
    "every metric worldeval computes; a pending metric's only when named).")
CACHE_DIR = flags.DEFINE_string(
    "cache_dir", None, "fetch: write DIR/<name>/<file> (the runners' --checkpoint_dir "
    "layout). Default: the Hugging Face cache for hub files, torch's hub cache for URLs.")
CHECKPOINT_DIR = flags.DEFINE_string(
    "checkpoint_dir", None, "plan: also look here for checkpoints, as runners do.")
ENDPOINT = flags.DEFINE_string(
    "endpoint", os.environ.get("HF_ENDPOINT") or "https://huggingface.co",
    "The Hugging Face hub to download from (env HF_ENDPOINT).")

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, cli_support.EXIT_BAD_INPUT


def _dir(value):
    return cli_support.user_path(value) if value else None


def _plan(catalog) -> int:
    ids = catalog_lib.benchmark_ids(catalog) if BENCHMARK.value == "all" else [BENCHMARK.value]
    known = set(catalog_lib.benchmark_ids(catalog)) | set(runtime_profiles.profile_ids())
    for benchmark_id in ids:
        runtime_profiles.require_known("benchmark", benchmark_id, known)
    checkpoint_dir = _dir(CHECKPOINT_DIR.value)
    for i, benchmark_id in enumerate(ids):
        entry = next((e for e in catalog.benchmarks if e.id == benchmark_id), None)
        print(("\n" if i else "") + plan.plan_text(
            benchmark_id, entry, str(checkpoint_dir) if checkpoint_dir else None), end="")
    return EXIT_OK


def _fetch() -> int:
    profile = runtime_profiles.load_profile(BENCHMARK.value)
    if METRICS.value:
        runtime_profiles.select_metrics(profile, METRICS.value)  # unknown ids: UnknownIdError
    cache_dir = _dir(CACHE_DIR.value)
    results = fetch.fetch(profile, METRICS.value, cache_dir, ENDPOINT.value)
    failed = [r for r in results if not r.ok]
    print(f"{len(results) - len(failed)} of {len(results)} files in place"
          + (f"; {len(failed)} not (see above)" if failed else ""))
    flag = f" --checkpoint_dir={cache_dir}" if cache_dir else ""
    print(f"next: ./bazelw run //tools:preflight -- --benchmark={BENCHMARK.value}{flag}")
    return EXIT_FAILED if failed else EXIT_OK


def main(argv) -> int:
    if len(argv) != 2 or argv[1] not in SUBCOMMANDS:
        given = " ".join(argv[1:]) or "none"
        print(f"error: expected one subcommand, {' or '.join(SUBCOMMANDS)}; got {given}",
              file=sys.stderr)
        return EXIT_USAGE
    if not BENCHMARK.value:
        print("error: --benchmark is required", file=sys.stderr)
        return EXIT_USAGE
    try:
        return _plan(catalog_lib.load_catalog()) if argv[1] == "plan" else _fetch()
    except runtime_profiles.UnknownIdError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    app.run(main, flags_parser=cli_support.parse_flags)
