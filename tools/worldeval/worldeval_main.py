"""One entry point for users who prefer one command:

    ./bazelw run //tools:worldeval -- run --benchmark=memobench --generated_dir=... ...
    ./bazelw run //tools:worldeval -- import --benchmark=memobench --eval_csv=...
    ./bazelw run //tools:worldeval -- merge --benchmark=vmbench --inputs=O1,O2 --output_dir=O
    ./bazelw run //tools:worldeval -- preflight --benchmark=memobench
    ./bazelw run //tools:worldeval -- assets plan --benchmark=memobench
    ./bazelw run //tools:worldeval -- catalog [--benchmark=memobench]
    ./bazelw run //tools:worldeval -- report --scorecards=A/scorecard.json --output=r.html
    ./bazelw run //tools:worldeval -- compare --scorecards=A/scorecard.json,B/scorecard.json
    ./bazelw run //tools:worldeval -- --help   # each subcommand in one line

It starts the program that does the work (a benchmark's :run or :import target, or
//tools:preflight, //tools:assets, //tools:catalog, //tools:report, //tools/report:compare)
from this
binary's runfiles, with the remaining arguments, in place of this process: its output
and exit code are the program's. Which benchmarks have a runner or importer comes from
the catalog's targets.
`merge` first checks and combines the shards' stores (tools/merge/merge_lib.py), then
starts the benchmark's runner on them with `--stored_only`.
`--help`, `-h` or `help` prints the usage (exit 0); no subcommand or an unknown one prints
it with the error (exit 2), as does an unknown benchmark (the message lists the valid ones).
"""

import sys

from tools.worldeval import dispatch

if __name__ == "__main__":
    sys.exit(dispatch.main(sys.argv[1:]))
