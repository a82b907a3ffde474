"""Times Physics-IQ (original track) as whole processes: the official pipeline and ours.

    ./bazelw build //benchmarks/physics_iq:run
    ./bazelw run //tools/bench:physics_iq_side_by_side -- \
        --official_dir=/path/to/physics-IQ-benchmark/code --official_python=/path/venv/bin/python \
        --width=1920 --height=1080 --tree_dir=/tmp/piq-bench-tree \
        --executors=local,processes,ray --num_workers=2 \
        --generated_width=1280 --generated_height=720 --real_masks_present

Issue 36 item 6. It writes the synthetic tree of tools/fixtures/physics_iq_tree.py at the
given size (one model, "follows"; its videos at --generated_width/height, default the
real size), then runs, each from a cold start: no mask folder yet, so both sides make the
real masks as upstream does when the folder is absent (spec §3.4); or, with
--real_masks_present, what users have (the dataset ships the real masks): the real masks
are made once, untimed, by the official pipeline (by our runner when no --official_dir
is given) and kept in the tree, and each timed run makes only the generated masks:
  - the official pipeline: `{official_python} run_physics_iq.py --input_folders
    generated/follows --output_folder out --descriptions_file descriptions.csv` from the
    tree root (upstream reads ./physics-IQ-benchmark, spec §1). The scripts of
    --official_dir (the user's checkout, never vendored here) are copied to a scratch
    folder with one change: EXPECTED_NUM_VIDEOS (198, run_physics_iq.py:154) becomes the
    tree's count, since the tree has fewer views than the 198 of the dataset;
  - our runner (//benchmarks/physics_iq:run, or --runner) with --real_dir, --generated_dir,
    --descriptions_file and a fresh --output_dir, once per --executors entry ("ours-local",
    "ours-processes", "ours-ray"; the last two with --num_workers when given).
Each round runs both, the side that went first alternating. For each run: wall time,
user+sys CPU and peak RSS (os.wait4 on the child: the largest of it and its reaped
descendants; for --executor=processes the largest single process, not the sum of
the workers), views per minute (views / wall). At the end: a table of medians, each
side's views per minute over the official's, and whether each side's results/follows.csv
is byte-identical to the official one (to the first side's without --official_dir).
Not a test; never run in CI.
"""

import multiprocessing
import os
import pathlib
import re
import shlex
import shutil
import statistics
import subprocess
import tempfile
import time
from concurrent import futures
from typing import Dict, List

from absl import app
from absl import flags

from tools.fixtures import physics_iq_tree

MODEL = "follows"
_RUNNER_IN_RUNFILES = "benchmarks/physics_iq/run"
_COUNT_LINE = re.compile(r"^(\s*EXPECTED_NUM_VIDEOS\s*=\s*)198\b", re.MULTILINE)
_ENV_DROP = ("RUNFILES_DIR", "RUNFILES_MANIFEST_FILE", "PYTHONPATH", "PYTHONSAFEPATH")

_OFFICIAL_DIR = flags.DEFINE_string(
    "official_dir", None, "Your checkout's code/ folder of google-deepmind/"
    "physics-IQ-benchmark (or the repository root holding code/); unset: ours only.")
_OFFICIAL_PYTHON = flags.DEFINE_string(
    "official_python", "python3", "The Python of a venv with upstream's requirements.")
_RUNNER = flags.DEFINE_string("runner", None, "Our runner binary (default: "
                              "//benchmarks/physics_iq:run from this binary's runfiles).")
_WIDTH = flags.DEFINE_integer("width", 1920, "Real video width.")
_HEIGHT = flags.DEFINE_integer("height", 1080, "Real video height.")
_GEN_WIDTH = flags.DEFINE_integer("generated_width", None, "Generated video width "
                                  "(default --width).", lower_bound=2)
_GEN_HEIGHT = flags.DEFINE_integer("generated_height", None, "Generated video height "
                                   "(default --height).", lower_bound=2)
_REAL_MASKS = flags.DEFINE_boolean(
    "real_masks_present", False, "Keep the real masks in the tree (made once, untimed), "
    "as the dataset ships them: the timed runs make only the generated masks.")
_EXECUTORS = flags.DEFINE_list("executors", ["local"], "Our runner's --executor values, "
                               "one timed side each: local, processes, ray.")
_NUM_WORKERS = flags.DEFINE_integer("num_workers", None, "Our runner's --num_workers for "
                                    "the processes and ray sides.", lower_bound=1)
_SCENARIOS = flags.DEFINE_integer(
    "scenarios", 3, "Scenarios in the tree (3 views each); beyond the fixture's 3 the same "
    "motions repeat under new names.", lower_bound=1, upper_bound=66)
_ROUNDS = flags.DEFINE_integer("rounds", 1, "Timed rounds of each side.", lower_bound=1)
_TREE = flags.DEFINE_string("tree_dir", None, "Where the tree is (written there when the "
                            "folder is absent or empty, else reused); default: a temp folder.")
_KEEP = flags.DEFINE_boolean("keep_outputs", False, "Keep every run's output folder.")


def _user_path(value: str) -> pathlib.Path:
    """Relative paths are taken from where `bazel run` was started."""
    base = os.environ.get("BUILD_WORKING_DIRECTORY", os.getcwd())
    return pathlib.Path(base, os.path.expanduser(value)).resolve()


def _runner_path() -> str:
    if _RUNNER.value:
        return str(_user_path(_RUNNER.value))
    for root in (pathlib.Path(__file__).resolve().parents[2], pathlib.Path(__file__).parents[2],
                 os.environ.get("RUNFILES_DIR")):
        if root:
            for candidate in (pathlib.Path(root) / _RUNNER_IN_RUNFILES,
                              pathlib.Path(root) / "worldeval" / _RUNNER_IN_RUNFILES):
                if candidate.is_file():
                    return str(candidate)
    raise app.UsageError("cannot find //benchmarks/physics_iq:run; pass --runner")


def _scenarios(count: int):
    """The fixture's scenarios, then the same motions again under new names."""
    base = physics_iq_tree.SCENARIOS
    out = []
    for i in range(count):
        s = base[i % len(base)]
        if i >= len(base):
            stem = s.name[:-len(".mp4")]
            s = physics_iq_tree.Scenario(f"{stem}-{i // len(base) + 1}.mp4", s.category,
                                         s.description, s.motion)
        out.append(s)
    return tuple(out)


def make_tree(folder: pathlib.Path) -> physics_iq_tree.Tree:
    spec = physics_iq_tree.TreeSpec(width=_WIDTH.value, height=_HEIGHT.value,
                                    scenarios=_scenarios(_SCENARIOS.value), models=(MODEL,),
                                    generated_width=_GEN_WIDTH.value,
                                    generated_height=_GEN_HEIGHT.value)
    descriptions = folder / "descriptions.csv"
    if descriptions.is_file():
        print(f"reusing the tree at {folder} (at the sizes it was written with: --width, "
              "--height, --generated_* and --scenarios are not checked against it)")
        bench = folder / "physics-IQ-benchmark"
        return physics_iq_tree.Tree(folder, descriptions, bench,
                                    {MODEL: folder / "generated" / MODEL})
    start = time.perf_counter()
    # In a child process: on Linux a child's peak RSS (what `timed` reports) starts from
    # its parent's at fork, and writing a 1080p tree takes this process to ~1.9 GiB.
    with futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as one:
        tree = one.submit(physics_iq_tree.write_tree, folder, spec).result()
    print(f"wrote the tree ({_WIDTH.value}x{_HEIGHT.value}, generated "
          f"{'x'.join(map(str, spec.generated_size))}, {spec.fps} FPS, {spec.frames} "
          f"frames, {len(spec.scenarios)} scenarios) at {folder} in "
          f"{time.perf_counter() - start:.1f} s", flush=True)
    return tree


def official_scripts(source: pathlib.Path, dest: pathlib.Path, views: int) -> pathlib.Path:
    """Copies the user's upstream scripts, the generated-video count set to `views`."""
    code = source / "code" if (source / "code" / "run_physics_iq.py").is_file() else source
    main = code / "run_physics_iq.py"
    if not main.is_file():
        raise app.UsageError(f"--official_dir: no run_physics_iq.py in {source} or its code/")
    dest.mkdir(parents=True)
    for script in code.glob("*.py"):
        shutil.copy2(script, dest / script.name)
    text, n = _COUNT_LINE.subn(rf"\g<1>{views}", main.read_text())
    if n != 1:
        raise app.UsageError(f"{main}: expected one `EXPECTED_NUM_VIDEOS = 198` line, found {n}")
    (dest / main.name).write_text(text)
    return dest / main.name


def _cold(tree: physics_iq_tree.Tree, keep_real_masks: bool = False) -> None:
    """Removes what either side leaves in the tree, so the next run starts cold (but for
    the real masks, with `keep_real_masks`)."""
    masks = tree.benchmark / "video-masks"
    shutil.rmtree(masks / "generated" if keep_real_masks else masks, ignore_errors=True)
    shutil.rmtree(tree.root / "out", ignore_errors=True)


def _make_real_masks(tree: physics_iq_tree.Tree, sides, scratch: pathlib.Path,
                     env: Dict[str, str]) -> None:
    """The real masks in the tree, made once by the first side (official when given)."""
    real = tree.benchmark / "video-masks" / "real"
    _cold(tree)
    name, command = sides[0]
    argv, out = command(scratch / "real-masks")
    timed(name, argv, tree.root, env, scratch / "real-masks.log")
    if name != "official":  # our runner writes the masks it made under its output_dir
        shutil.copytree(out / "video-masks" / "real", real)
    shutil.rmtree(out, ignore_errors=True)
    count = len(list(real.rglob("*.mp4")))
    print(f"real masks made untimed by {name}: {count} files in {real}", flush=True)


def timed(name: str, argv: List[str], cwd: pathlib.Path, env: Dict[str, str],
          log: pathlib.Path) -> Dict[str, float]:
    """Runs argv; returns wall s, user+sys CPU s and peak RSS MiB of it and its children."""
    with open(log, "wb") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        tail = log.read_text(errors="replace")[-3000:]
        raise RuntimeError(f"{name} exited {proc.returncode} (log {log}):\n{tail}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
            "rss": usage.ru_maxrss / 1024.0}


def main(argv):
    if len(argv) > 1:
        raise app.UsageError("unexpected arguments: " + " ".join(argv[1:]), exitcode=2)
    runner = _runner_path()
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="physics-iq-side-by-side-"))
    tree = make_tree(_user_path(_TREE.value) if _TREE.value else scratch / "tree")
    views = len(list(tree.generated[MODEL].glob("*.mp4")))
    env = {k: v for k, v in os.environ.items() if k not in _ENV_DROP}
    sides = []
    if _OFFICIAL_DIR.value:
        script = official_scripts(_user_path(_OFFICIAL_DIR.value), scratch / "official_code",
                                  views)
        python = shutil.which(_OFFICIAL_PYTHON.value) or _OFFICIAL_PYTHON.value
        sides.append(("official", lambda out: (
            [python, str(script), "--input_folders", f"generated/{MODEL}", "--output_folder",
             "out", "--descriptions_file", "descriptions.csv"], tree.root / "out")))
    for executor in _EXECUTORS.value:
        extra = [f"--executor={executor}"]
        if executor != "local" and _NUM_WORKERS.value:
            extra.append(f"--num_workers={_NUM_WORKERS.value}")
        sides.append((f"ours-{executor}", lambda out, extra=extra: (
            [runner, f"--real_dir={tree.benchmark}",
             f"--generated_dir={tree.generated[MODEL]}",
             f"--descriptions_file={tree.descriptions}", f"--output_dir={out}", *extra],
            out)))
    if _REAL_MASKS.value:
        _make_real_masks(tree, sides, scratch, env)
    for name, command in sides:
        print(f"{name + ':':<10}" + shlex.join(command(scratch / f"{name}-N")[0]))
    runs: Dict[str, List[Dict[str, float]]] = {name: [] for name, _ in sides}
    csvs: Dict[str, bytes] = {}
    print(f"nproc {os.cpu_count()}, load average before {os.getloadavg()}", flush=True)
    for r in range(_ROUNDS.value):
        shift = r % len(sides)
        for name, command in sides[shift:] + sides[:shift]:
            _cold(tree, _REAL_MASKS.value)
            argv, out = command(scratch / f"{name}-{r}")
            log = scratch / f"{name}-{r}.log"
            result = timed(name, argv, tree.root, env, log)
            runs[name].append(result)
            csv_path = out / "results" / f"{MODEL}.csv"
            if csv_path.is_file():
                csvs.setdefault(name, csv_path.read_bytes())
            print(f"round {r + 1}: {name:<15} {result['wall']:8.1f} s wall, "
                  f"{result['cpu']:8.1f} s CPU, peak RSS {result['rss']:7.0f} MiB "
                  f"(load {os.getloadavg()[0]:.2f})", flush=True)
            if _KEEP.value and out == tree.root / "out":
                shutil.move(str(out), str(scratch / f"{name}-{r}"))
    _cold(tree)
    generated = f"{_GEN_WIDTH.value or _WIDTH.value}x{_GEN_HEIGHT.value or _HEIGHT.value}"
    print(f"\n{views} views (real {_WIDTH.value}x{_HEIGHT.value}, generated {generated}, "
          f"real masks {'present' if _REAL_MASKS.value else 'made (cold)'}), "
          f"{_ROUNDS.value} round(s), medians; load average after {os.getloadavg()}")
    first = sides[0][0]
    print(f"{'side':<16}{'wall s':>9}{'CPU s':>9}{'peak RSS MiB':>14}{'views/min':>11}"
          f"{'vs ' + first:>16}  CSV = {first}'s")
    per_min = {}
    for name, results in runs.items():
        wall = statistics.median(x["wall"] for x in results)
        per_min[name] = 60.0 * views / wall
        same = ("missing" if name not in csvs or first not in csvs
                else "yes" if csvs[name] == csvs[first] else "NO")
        print(f"{name:<16}{wall:>9.1f}{statistics.median(x['cpu'] for x in results):>9.1f}"
              f"{max(x['rss'] for x in results):>14.0f}{per_min[name]:>11.2f}"
              f"{per_min[name] / per_min[first]:>15.2f}x  {same}")
    if _KEEP.value or _TREE.value:
        print(f"scratch: {scratch}")
    if not _KEEP.value:
        shutil.rmtree(scratch / "official_code", ignore_errors=True)
        for name in runs:
            for r in range(_ROUNDS.value):
                shutil.rmtree(scratch / f"{name}-{r}", ignore_errors=True)
        if not _TREE.value:
            shutil.rmtree(scratch / "tree", ignore_errors=True)


if __name__ == "__main__":
    app.run(main)
