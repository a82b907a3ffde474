"""One entry point for users who prefer one command:

    ./bazelw run //tools:worldeval -- run --benchmark=memobench --generated_dir=... ...
    ./bazelw run //tools:worldeval -- import --benchmark=memobench --eval_csv=...
    ./bazelw run //tools:worldeval -- preflight --benchmark=memobench
    ./bazelw run //tools:worldeval -- assets plan --benchmark=memobench
    ./bazelw run //tools:worldeval -- catalog [--benchmark=memobench]

It starts the program that does the work (a benchmark's :run or :import target, or
//tools:preflight, //tools:assets, //tools:catalog) from this binary's runfiles, with
the remaining arguments, in place of this process: its output and exit code are the
program's. Which benchmarks have a runner or importer comes from the catalog's targets.
Exit code 2 for an unknown subcommand or benchmark (the message lists the valid ones).
"""

import sys

from tools.worldeval import dispatch

if __name__ == "__main__":
    sys.exit(dispatch.main(sys.argv[1:]))
