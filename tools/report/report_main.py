"""Writes one self-contained HTML report for one or many runs of one benchmark:

    ./bazelw run //tools:report -- --scorecards=A/scorecard.json --output=report.html
    ./bazelw run //tools:report -- --scorecards=A/scorecard.json,B/scorecard.json \\
        --output=report.html

Each run's per-sample scores are read from per_sample_scores.jsonl beside its scorecard.
With two or more runs the report compares each with the baseline (paired bootstrap):
the first scorecard, or the one --baseline names (its position in --scorecards, from 1).
Exit codes: 0 written; 2 (one line naming the file and what was expected) for a
scorecard or per-sample file that is missing, empty or not one (a bare NaN, a JSON
array), scorecards of different benchmarks, or an --output that is a folder or cannot
be written.
"""

import sys

from absl import app
from absl import flags

from metrics import cli_support
from tools.report import bootstrap
from tools.report import report_lib
from tools.report import runs as runs_lib

SCORECARDS = flags.DEFINE_list(
    "scorecards", None, "Scorecard files (scorecard.json), comma-separated, one benchmark.")
OUTPUT = flags.DEFINE_string("output", "report.html",
                             "The HTML file to write (relative to where you ran the command).")
SEED = flags.DEFINE_integer("seed", bootstrap.DEFAULT_SEED,
                            "Seed of the comparisons' bootstrap (recorded in the report).")
RESAMPLES = flags.DEFINE_integer("resamples", bootstrap.DEFAULT_RESAMPLES,
                                 "Bootstrap resamples of the comparisons.", lower_bound=100)
BASELINE = flags.DEFINE_integer(
    "baseline", 1, "With several runs: the position (from 1) in --scorecards of the run the "
    "others are compared with.", lower_bound=1)
WORST = flags.DEFINE_integer("worst", report_lib.DEFAULT_WORST,
                             "How many worst samples to list per metric.", lower_bound=1)


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {' '.join(argv[1:])}")
    paths = [cli_support.user_path(p) for p in SCORECARDS.value or []]
    try:
        out = report_lib.write_report(paths, cli_support.user_path(OUTPUT.value),
                                      seed=SEED.value, resamples=RESAMPLES.value,
                                      worst=WORST.value, baseline=BASELINE.value - 1)
    except runs_lib.BAD_INPUT as e:
        print(f"error: {e}", file=sys.stderr)
        return cli_support.EXIT_BAD_INPUT
    print(f"wrote {out}")
    return cli_support.EXIT_OK


if __name__ == "__main__":
    flags.mark_flag_as_required("scorecards")
    app.run(main, flags_parser=cli_support.parse_flags)
