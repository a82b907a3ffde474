"""Compares two runs of one benchmark, metric by metric:

    ./bazelw run //tools:worldeval -- compare --scorecards=A/scorecard.json,B/scorecard.json
    ./bazelw run //tools:worldeval -- compare --scorecards=A,B --metrics=GT_ALL_PSNR --format=json

For each metric: B minus A over the samples both runs evaluated (per-sample scores from
each run's per_sample_scores.jsonl), a paired bootstrap 95% interval (seeded; the seed is
printed), whether it excludes zero, and warnings where the runs differ in code, backend,
checkpoint or coverage. Exit codes: 0 done, 2 unreadable or mismatched scorecards.
"""

import sys

from absl import app
from absl import flags

from metrics import cli_support
from tools.report import bootstrap
from tools.report import compare_format
from tools.report import compare_lib
from tools.report import runs as runs_lib

SCORECARDS = flags.DEFINE_list(
    "scorecards", None, "Two scorecard.json files, A then B (the difference is B minus A).")
METRICS = flags.DEFINE_list(
    "metrics", [], "Compare only these metrics (ids, or id@split); default: all of A's.")
SEED = flags.DEFINE_integer("seed", bootstrap.DEFAULT_SEED, "Seed of the bootstrap.")
RESAMPLES = flags.DEFINE_integer("resamples", bootstrap.DEFAULT_RESAMPLES,
                                 "Bootstrap resamples.", lower_bound=100)
FORMAT = flags.DEFINE_enum("format", "table", sorted(compare_format.FORMATS),
                           "table (terminal), markdown (papers, pull requests) or json.")


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {' '.join(argv[1:])}")
    paths = [cli_support.user_path(p) for p in SCORECARDS.value or []]
    try:
        if len(paths) != 2:
            raise runs_lib.RunError(f"--scorecards takes two files (A,B), got {len(paths)}")
        a, b = runs_lib.load_runs(paths)
        cmp = compare_lib.compare(a, b, METRICS.value, SEED.value, RESAMPLES.value)
    except runs_lib.BAD_INPUT as e:
        print(f"error: {e}", file=sys.stderr)
        return cli_support.EXIT_BAD_INPUT
    sys.stdout.write(compare_format.FORMATS[FORMAT.value](cmp))
    return cli_support.EXIT_OK


if __name__ == "__main__":
    flags.mark_flag_as_required("scorecards")
    app.run(main, flags_parser=cli_support.parse_flags)
