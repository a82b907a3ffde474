"""`worldeval <subcommand>`: which program to start, and starting it in place of this
process (see worldeval_main.py)."""

import os
import sys
from typing import Dict, List, Optional, Tuple

from benchmarks.common import paths
from tools.catalog import catalog_lib

EXIT_USAGE = 2
# Subcommand -> the target whose binary it starts; run/import depend on the benchmark.
TOOLS = {"preflight": "//tools/preflight:preflight", "assets": "//tools/assets:assets",
         "catalog": "//tools/catalog:catalog"}
PER_BENCHMARK = ("run", "import")
SUBCOMMANDS = PER_BENCHMARK + tuple(TOOLS)


class UsageError(Exception):
    """Bad subcommand or benchmark; the message lists the valid ones."""


def runfile_of(label: str) -> str:
    """//pkg/sub:name -> pkg/sub/name, the binary's path in the runfiles."""
    package, name = label[2:].split(":")
    return f"{package}/{name}"


def benchmark_flag(args: List[str]) -> Optional[str]:
    """The value of --benchmark=X or --benchmark X, if given."""
    for i, arg in enumerate(args):
        if arg.startswith("--benchmark="):
            return arg.split("=", 1)[1]
        if arg == "--benchmark" and i + 1 < len(args):
            return args[i + 1]
    return None


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


def per_benchmark_targets(kind: str) -> Dict[str, str]:
    """{benchmark id: label} of the catalog's `:<kind>` targets (kind: run or import)."""
    return {entry.id: label for entry in catalog_lib.load_catalog().benchmarks
            for label in entry.targets if label.endswith(f":{kind}")}


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
        raise UsageError(f"{command} needs --benchmark=ID; benchmarks: {', '.join(ids)}")
    if benchmark not in ids:
        raise UsageError(f"unknown benchmark '{benchmark}'; the valid ones are: {', '.join(ids)}")
    targets = per_benchmark_targets(command)
    if benchmark not in targets:
        have = ", ".join(f"{b} ({t})" for b, t in targets.items()) or "none"
        raise UsageError(f"worldeval has no {command} program for {benchmark} yet (see "
                         f"`worldeval catalog --benchmark={benchmark}`); {command} exists for: "
                         f"{have}")
    return targets[benchmark], _without_benchmark(args)


def main(argv: List[str]) -> int:
    try:
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
    os.execv(binary, [binary, *args])
    return 1  # not reached
