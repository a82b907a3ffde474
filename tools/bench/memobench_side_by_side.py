"""Times MemoBench Step 1 as whole processes: our runner, and optionally the official one.

    bazel run //tools/bench:memobench_side_by_side -- \
        --generated_dir=/tmp/mb-bench/generated/BenchModel --data_root=/tmp/mb-bench/data \
        --official_command='cd /path/to/memobench && python evaluation/run_eval.py ... \
            --out_csv={out}/eval.csv' --rounds=3

Each round runs every command once, each going first in turn, after one untimed
warm-up of each (so both read the inputs from the page cache). It prints every
round's wall time, then clips/minute (clips / median wall time) for each side and
their ratio. The official side is whatever command line you give: this script never
fetches or builds the official code. `{out}` in it is replaced by a fresh folder per
run; when a CSV appears there its data rows are counted as the official clip count.

Without --generated_dir it times our runner on the bundled sample (no flags but
--output_dir: the first-look run). Our runner is //benchmarks/memobench:run (or
--runner); with --generated_dir it gets --steps=step1 --offline, the data flags and
--metrics (default: the eight PSNR/SSIM columns). Not a test.
"""

import csv
import os
import pathlib
import shlex
import statistics
import subprocess
import tempfile
import time
from typing import List, Optional, Sequence

from absl import app
from absl import flags

PIXEL_METRICS = tuple(f"GT_{p}_{m}" for p in ("O", "H", "R", "ALL") for m in ("PSNR", "SSIM"))
_RUNNER_IN_RUNFILES = "benchmarks/memobench/run"

_GENERATED_DIR = flags.DEFINE_string(
    "generated_dir", None, "Model output root (Synthetic/, Real/); unset: the bundled sample.")
_DATA_ROOT = flags.DEFINE_string("data_root", None, "MemoBench data folder.")
_MODE = flags.DEFINE_enum("mode", "both", ["synthetic", "real", "both"], "Split(s) to run.")
_METRICS = flags.DEFINE_list("metrics", list(PIXEL_METRICS),
                             "Our --metrics (with --generated_dir).")
_ROUNDS = flags.DEFINE_integer("rounds", 3, "Timed rounds of each command.", lower_bound=1)
_WARMUP = flags.DEFINE_integer("warmup", 1, "Untimed runs of each command first.",
                               lower_bound=0)
_OFFICIAL = flags.DEFINE_string(
    "official_command", None, "Shell command running your own checkout of the official "
    "run_eval.py on the same data; {out} becomes a fresh output folder per run.")
_RUNNER = flags.DEFINE_string("runner", None, "Our runner binary (default: "
                              "//benchmarks/memobench:run from this binary's runfiles).")
_BASELINE = flags.DEFINE_string(
    "baseline_runner", None, "Another build of our runner (e.g. a copy of an older "
    "revision's bazel-bin/benchmarks/memobench/run with its runfiles), timed as a third "
    "side with the same flags.")
_EXTRA = flags.DEFINE_string("runner_args", "", "Extra flags for our runner (shell words).")
_WORKERS = flags.DEFINE_integer("decode_workers", None, "Sets WORLDEVAL_FRAME_THREADS "
                                "for our runner (unset: its default).", lower_bound=1)
_KEEP = flags.DEFINE_boolean("keep_outputs", False, "Keep every run's output folder.")


def _runner_path() -> str:
    if _RUNNER.value:
        return _RUNNER.value
    here = pathlib.Path(__file__).resolve().parents[2]  # the workspace in runfiles
    for root in (pathlib.Path(__file__).parents[2], here, os.environ.get("RUNFILES_DIR")):
        if root:
            for candidate in (pathlib.Path(root) / _RUNNER_IN_RUNFILES,
                              pathlib.Path(root) / "worldeval" / _RUNNER_IN_RUNFILES):
                if candidate.is_file():
                    return str(candidate)
    raise app.UsageError("cannot find //benchmarks/memobench:run; pass --runner")


def _user_path(value: str) -> str:
    """Relative paths are taken from where `bazel run` was started."""
    base = os.environ.get("BUILD_WORKING_DIRECTORY", os.getcwd())
    return str(pathlib.Path(base, os.path.expanduser(value)).resolve())


def our_command(runner: str, out: pathlib.Path) -> List[str]:
    args = [runner, f"--output_dir={out}"]
    if _GENERATED_DIR.value:
        args += [f"--generated_dir={_user_path(_GENERATED_DIR.value)}",
                 f"--data_root={_user_path(_DATA_ROOT.value)}", f"--mode={_MODE.value}",
                 f"--metrics={','.join(_METRICS.value)}", "--steps=step1", "--offline"]
    return args + shlex.split(_EXTRA.value)


def _csv_rows(folder: pathlib.Path) -> Optional[int]:
    """Data rows of the CSVs in folder (eval_*.csv preferred), None if there are none."""
    found = sorted(folder.rglob("eval_*.csv")) or sorted(folder.rglob("*.csv"))
    if not found:
        return None
    with open(found[0], newline="", encoding="utf-8") as f:
        return max(0, sum(1 for _ in csv.reader(f)) - 1)


def _timed(name: str, argv_or_shell, out: pathlib.Path, env) -> float:
    out.mkdir(parents=True, exist_ok=True)
    shell = isinstance(argv_or_shell, str)
    start = time.perf_counter()
    proc = subprocess.run(argv_or_shell, shell=shell, env=env, cwd=os.environ.get(
        "BUILD_WORKING_DIRECTORY"), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        executable="/bin/bash" if shell else None, check=False)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        tail = proc.stdout.decode(errors="replace")[-3000:]
        raise RuntimeError(f"{name} exited {proc.returncode}:\n{tail}")
    return wall


def summary(name: str, walls: Sequence[float], clips: int) -> str:
    med = statistics.median(walls)
    return (f"{name:<9} {clips} clips, median {med:6.2f} s  (min {min(walls):.2f}, max {max(walls):.2f}, "
            f"{len(walls)} rounds)  {60.0 * clips / med:6.1f} clips/minute")


def main(argv):
    if len(argv) > 1:
        raise app.UsageError("unexpected arguments: " + " ".join(argv[1:]), exitcode=2)
    if bool(_GENERATED_DIR.value) != bool(_DATA_ROOT.value):
        raise app.UsageError("--generated_dir and --data_root go together", exitcode=2)
    if _OFFICIAL.value and not _GENERATED_DIR.value:
        raise app.UsageError("--official_command needs --generated_dir/--data_root",
                             exitcode=2)
    runner = _runner_path()
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="memobench-side-by-side-"))
    ours_env = dict(os.environ)
    for key in ("RUNFILES_DIR", "RUNFILES_MANIFEST_FILE", "PYTHONPATH"):
        ours_env.pop(key, None)
    if _WORKERS.value:
        ours_env["WORLDEVAL_FRAME_THREADS"] = str(_WORKERS.value)
    sides = [("ours", lambda out: our_command(runner, out), ours_env)]
    if _BASELINE.value:
        baseline = _user_path(_BASELINE.value)
        sides.append(("baseline", lambda out: our_command(baseline, out), ours_env))
    if _OFFICIAL.value:
        official_env = {k: v for k, v in os.environ.items()
                        if k not in ("RUNFILES_DIR", "RUNFILES_MANIFEST_FILE", "PYTHONPATH")}
        sides.append(("official", lambda out: _OFFICIAL.value.replace("{out}", str(out)),
                      official_env))
    print("ours:     " + shlex.join(our_command(runner, scratch / "ours-N")))
    if _BASELINE.value:
        print("baseline: " + shlex.join(our_command(_user_path(_BASELINE.value),
                                                    scratch / "baseline-N")))
    if _OFFICIAL.value:
        print("official: " + _OFFICIAL.value)
    walls = {name: [] for name, _, _ in sides}
    clips = {}
    runs = 0
    for r in range(_WARMUP.value + _ROUNDS.value):
        shift = r % len(sides)  # each side goes first in turn
        order = sides[shift:] + sides[:shift]
        for name, command, env in order:
            out = scratch / f"{name}-{runs}"
            runs += 1
            wall = _timed(name, command(out), out, env)
            rows = _csv_rows(out)
            if rows is not None:
                clips.setdefault(name, rows)
            timed = r >= _WARMUP.value
            if timed:
                walls[name].append(wall)
            print(f"round {r - _WARMUP.value + 1 if timed else 'warm-up'}: {name:<8} "
                  f"{wall:7.2f} s", flush=True)
            if not _KEEP.value:
                subprocess.run(["rm", "-rf", str(out)], check=False)
    n = clips.get("ours")
    if n is None:
        raise RuntimeError("our runner wrote no eval_*.csv")
    if "official" in clips and clips["official"] != n:
        print(f"warning: the official CSV has {clips['official']} rows, ours {n}")
    print(f"{n} clips per run; load average now {os.getloadavg()[0]:.2f}")
    for name, _, _ in sides:
        print(summary(name, walls[name], clips.get(name, n)))
    cpm = {name: clips.get(name, n) / statistics.median(walls[name]) for name in walls}
    for other in ("baseline", "official"):
        if other in cpm:
            print(f"ratio (ours / {other} clips per minute): "
                  f"{cpm['ours'] / cpm[other]:.2f}x")
    if _KEEP.value:
        print(f"outputs: {scratch}")


if __name__ == "__main__":
    app.run(main)
