"""`worldeval <subcommand>`: which program to start, and starting it in place of this
process (see worldeval_main.py)."""

import os
import sys
from typing import Dict, List, Optional, Tuple

from benchmarks.common import paths
from tools.catalog import catalog_lib
from tools.merge import merge_lib

EXIT_USAGE = 2
# Subcommand -> the target whose binary it starts; run/import depend on the benchmark.
TOOLS = {"preflight": "//tools/preflight:preflight", "assets": "//tools/assets:assets",
         "catalog": "//tools/catalog:catalog", "report": "//tools/report:report",
         "compare": "//tools/report:compare"}
PER_BENCHMARK = ("run", "import")
MERGE = "merge"  # shards' output dirs -> one run's outputs, through the benchmark's :run
SUBCOMMANDS = PER_BENCHMARK + (MERGE,) + tuple(TOOLS)
HELP = ("help", "--help", "-h", "-help", "--helpshort")
# One line per subcommand for the usage text.
ABOUT = {
    "run": "evaluate a model's outputs: run --benchmark=ID [the runner's flags]",
    "import": "official result files to a scorecard: import --benchmark=ID [files]",
    MERGE: "combine a sharded run: merge --benchmark=ID --inputs=O1,O2 --output_dir=O",
    "preflight": "is what a benchmark's metrics need here? preflight --benchmark=ID",
    "assets": "datasets and checkpoints: assets plan|fetch --benchmark=ID",
    "catalog": "every catalogued benchmark and what worldeval does with it",
    "report": "one HTML report of runs: report --scorecards=A/scorecard.json[,B/...]",
    "compare": "paired comparison of two runs: compare --scorecards=A,B",
}


class UsageError(Exception):
    """Bad subcommand or benchmark; the message lists the valid ones."""


def runfile_of(label: str) -> str:
    """//pkg/sub:name -> pkg/sub/name, the binary's path in the runfiles."""
    package, name = label[2:].split(":")
    return f"{package}/{name}"


def flag_value(args: List[str], name: str) -> Optional[str]:
    """The value of --name=X or --name X, if given."""
    for i, arg in enumerate(args):
        if arg.startswith(f"--{name}="):
            return arg.split("=", 1)[1]
        if arg == f"--{name}" and i + 1 < len(args):
            return args[i + 1]
    return None


def benchmark_flag(args: List[str]) -> Optional[str]:
    """The value of --benchmark=X or --benchmark X, if given."""
    return flag_value(args, "benchmark")


def _without_benchmark(args: List[str]) -> List[str]:
    out, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg == "--benchmark":
            skip = True
        elif not arg.startswith("--benchmark="):
            out.append(arg)
    return out


def merge_args(benchmark: str, args: List[str]) -> List[str]:
    """`merge --inputs=O1,O2,... --output_dir=O [--allow_missing_shards]`: checks and
    combines the shards (tools/merge), then the runner arguments that finish the run."""
    known = ("--inputs", "--output_dir", "--allow_missing_shards")
    unknown = [a for a in args if a.startswith("--") and not a.startswith(known)]
    if unknown:
        raise UsageError(f"merge takes --inputs, --output_dir and --allow_missing_shards, "
                         f"not {' '.join(unknown)}")
    inputs, output_dir = flag_value(args, "inputs"), flag_value(args, "output_dir")
    if not inputs or not output_dir:
        raise UsageError("merge needs --inputs=<shard output dirs, comma-separated> and "
                         "--output_dir=<a new directory>")
    try:
        return merge_lib.prepare([p for p in inputs.split(",") if p], output_dir, benchmark,
                                 allow_missing="--allow_missing_shards" in args)
    except merge_lib.MergeError as e:
        raise UsageError(f"merge: {e}") from e


def per_benchmark_targets(kind: str) -> Dict[str, str]:
    """{benchmark id: label} of the catalog's `:<kind>` targets (kind: run or import)."""
    return {entry.id: label for entry in catalog_lib.load_catalog().benchmarks
            for label in entry.targets if label.endswith(f":{kind}")}


def benchmarks_text(kind: str = "run") -> str:
    """The benchmarks with a `:<kind>` program, then how many catalog entries have none."""
    have = per_benchmark_targets(kind)
    rest = len(catalog_lib.benchmark_ids()) - len(have)
    return (f"benchmarks with a {kind} program: {', '.join(have) or 'none'}; {rest} more "
            f"in the catalog have none yet (worldeval catalog)")


def usage() -> str:
    """Each subcommand in one line, then the runnable benchmarks."""
    width = max(len(c) for c in SUBCOMMANDS)
    lines = ["usage: ./bazelw run //tools:worldeval -- <subcommand> [flags]", "",
             "subcommands:"]
    lines += [f"  {c.ljust(width)}  {ABOUT[c]}" for c in SUBCOMMANDS]
    lines += [f"  {'help'.ljust(width)}  this text", "", benchmarks_text(), "",
              "A subcommand's own flags: worldeval <subcommand> [--benchmark=ID] --help"]
    return "\n".join(lines)


def resolve(argv: List[str]) -> Tuple[str, List[str]]:
    """(label to start, its arguments) for `worldeval <argv>`; raises UsageError."""
    if not argv or argv[0] not in SUBCOMMANDS:
        given = f"'{argv[0]}'" if argv else "none"
        raise UsageError(f"unknown subcommand {given}; the valid ones are: "
                         f"{', '.join(SUBCOMMANDS)}")
    command, args = argv[0], argv[1:]
    if command in TOOLS:
        return TOOLS[command], args
    benchmark = benchmark_flag(args)
    ids = catalog_lib.benchmark_ids()
    if not benchmark:
        kind = "run" if command == MERGE else command
        raise UsageError(f"{command} needs --benchmark=ID; {benchmarks_text(kind)}")
    if benchmark not in ids:
        raise UsageError(f"unknown benchmark '{benchmark}'; the valid ones are: {', '.join(ids)}")
    targets = per_benchmark_targets("run" if command == MERGE else command)
    if benchmark not in targets:
        have = ", ".join(f"{b} ({t})" for b, t in targets.items()) or "none"
        raise UsageError(f"worldeval has no {command} program for {benchmark} yet (see "
                         f"`worldeval catalog --benchmark={benchmark}`); {command} exists for: "
                         f"{have}")
    if command == MERGE:
        return targets[benchmark], merge_args(benchmark, _without_benchmark(args))
    return targets[benchmark], _without_benchmark(args)


def main(argv: List[str]) -> int:
    try:
        if argv and argv[0] in HELP:
            print(usage())
            return 0
        if not argv or argv[0] not in SUBCOMMANDS:
            given = f"unknown subcommand '{argv[0]}'" if argv else "no subcommand given"
            print(f"error: {given}\n\n{usage()}", file=sys.stderr)
            return EXIT_USAGE
        label, args = resolve(argv)
    except (UsageError, catalog_lib.TextprotoError) as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    try:
        binary = str(paths.runfile(runfile_of(label)))
    except FileNotFoundError:
        print(f"internal error: {label} is not in //tools:worldeval's runfiles; add it to the "
              "data of //tools/worldeval:worldeval", file=sys.stderr)
        return 1
    sys.stdout.flush()
    # The program's own launcher sets its PYTHONPATH and appends any inherited one: pass
    # ours on and the two together can pass the kernel's 128 KiB limit on one variable
    # (execv: "Argument list too long") under a long runfiles path.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    os.execve(binary, [binary, *args], env)
    return 1  # not reached
