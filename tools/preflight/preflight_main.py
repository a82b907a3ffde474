"""Preflight: is everything a benchmark's metrics need here? (fail-closed, never downloads)

    ./bazelw run //tools:preflight -- --benchmark=memobench [--metrics=GT_ALL_LPIPS,...] \\
        [--checkpoint_dir=DIR] [--output=report.json]

Prints one verdict per metric and what to do about each one that is not ready, and
writes the report (worldeval.v1.PreflightReport, JSON) with --output. Python modules are
imported in worldeval's locked environment (this binary's deps). Exit codes: 0 every
metric asked for is ready, 1 some are not, 2 bad usage (an unknown benchmark or metric
id lists the valid ones). Readiness is never evidence that a benchmark ran.
"""

import sys

from absl import app
from absl import flags

from benchmarks.common import preflight
from benchmarks.common import runtime_profiles
from metrics import cli_support
from proto import schema

BENCHMARK = flags.DEFINE_string("benchmark", None, "The benchmark id, e.g. memobench.")
METRICS = flags.DEFINE_list(
    "metrics", None, "Comma-separated metric ids to check (default: all of the profile's).")
CHECKPOINT_DIR = flags.DEFINE_string(
    "checkpoint_dir", None, "Searched for checkpoints as the runners' --checkpoint_dir is "
    "(<dir>/<name>/<file>), before the Hugging Face and torch caches. Give the same value "
    "as to the runner.")
OUTPUT = flags.DEFINE_string(
    "output", None, "Write the report here (JSON mapping of worldeval.v1.PreflightReport).")
PROFILE = flags.DEFINE_string(
    "profile", None, "Read this runtime profile instead of "
    "benchmarks/<package>/runtime_profile.textproto (the id with - as _; for a profile "
    "being written).")
IMPORT_TIMEOUT_S = flags.DEFINE_float(
    "import_timeout_s", 180.0, "Seconds one Python module may take to import.", lower_bound=1)
SERVICE_TIMEOUT_S = flags.DEFINE_float(
    "service_timeout_s", 3.0, "Seconds one service may take to answer.", lower_bound=0.1)

EXIT_READY, EXIT_NOT_READY, EXIT_USAGE = 0, 1, cli_support.EXIT_BAD_INPUT


def _load():
    if PROFILE.value:
        path = cli_support.user_path(PROFILE.value)
        return runtime_profiles.parse_profile(path, expected_id=BENCHMARK.value), str(path)
    profile = runtime_profiles.load_profile(BENCHMARK.value)
    package = runtime_profiles.package_of(BENCHMARK.value)
    return profile, f"benchmarks/{package}/{runtime_profiles.PROFILE_FILE}"


def main(argv) -> int:
    if len(argv) > 1:
        print(f"error: unexpected arguments {' '.join(argv[1:])} (flags only)", file=sys.stderr)
        return EXIT_USAGE
    try:
        profile, source = _load()
        options = preflight.Options(
            checkpoint_dir=str(cli_support.user_path(CHECKPOINT_DIR.value))
            if CHECKPOINT_DIR.value else None,
            import_timeout_s=IMPORT_TIMEOUT_S.value, service_timeout_s=SERVICE_TIMEOUT_S.value)
        report = preflight.run_preflight(profile, METRICS.value, options, source)
    except (runtime_profiles.UnknownIdError, runtime_profiles.TextprotoError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    print(preflight.format_table(report))
    if OUTPUT.value:
        path = cli_support.user_path(OUTPUT.value)
        schema.write_json(path, report)
        print(f"report: {path}")
    return EXIT_READY if report.ready else EXIT_NOT_READY


if __name__ == "__main__":
    flags.mark_flag_as_required("benchmark")
    app.run(main, flags_parser=cli_support.parse_flags)
