"""Times VBench's ten computed dimensions as whole processes: the official vbench 0.1.5 and
ours, on the same videos and the same seeded random full-size weights.

    ./bazelw build //benchmarks/vbench:run
    ./bazelw run //tools/bench:vbench_side_by_side -- --work_dir=/tmp/vbspeed_work \
        --official_python=/tmp/venv/bin/python --dino_hub_dir=/path/to/dino-checkout

Issue 34 item 7. In --work_dir (reused when present): weights/ (tools/bench/vbench_weights:
ours and the official layout of the same values), videos/ (standard-mode names of one
prompt of the official suite per dimension set of the ten dimensions, --videos_per_prompt
each: {prompt}-{i}.mp4, mp4v, --width x --height, --frames at --fps; textured planes
drifting, still for temporal flickering's still-scene prompts). Each round runs both
sides, the side that goes first alternating:
  - official: `{official_python} -c DRIVER`, where DRIVER is what upstream's
    vbench/launch/evaluate.py does without its three CUDA lines (dist_init's NCCL group and
    torch.cuda.set_device, device = torch.device("cuda"): launch/evaluate.py:109-111,
    distributed.py:36-38): `VBench(torch.device("cpu"), <the wheel's
    VBench_full_info.json>, out).evaluate(videos, "official", dimension_list=TEN,
    local=True, mode="vbench_standard", imaging_quality_preprocessing_mode="longer")` (the
    CLI's defaults), with VBENCH_CACHE_DIR and TORCH_HOME at the official weights, and
    each compute_<dimension> wrapped in a timer (the module attribute evaluate() looks up;
    the code itself unchanged). --dino_hub_dir (a facebookresearch/dino checkout: hubconf.py
    and its two modules) is linked where local mode looks for it.
  - ours: //benchmarks/vbench:run (or --runner) --dimensions=TEN --device=cpu --offline
    --checkpoint_dir=<weights/ours>; per-dimension time from the rows' seconds:vbench/*.
Per run: wall, user+sys CPU and peak RSS (os.wait4: the child and its reaped
descendants), videos/min = videos / wall. Then every video's value per dimension from both
{name}_eval_results.json files: temporal_flickering (weight-free) must be equal exactly,
the model dimensions within ABS_TOL (parity.csv's 1e-05 of the DINO, CLIP, ViCLIP rows;
the same bound for MUSIQ, AMT, RAFT, which have no row yet) or RELATIVE 1e-05 for the
imaging scores (MUSIQ's 0-100 scale). Not a test; never run in CI.
"""

import json
import os
import pathlib
import shutil
import statistics
import subprocess
import time
from typing import Dict, List

from absl import app
from absl import flags

from benchmarks.vbench.suite import prompt_suite
from tools.bench import vbench_weights
from tools.fixtures import fixture_io
from tools.fixtures import mirabench_clips

TEN = ("subject_consistency", "background_consistency", "temporal_flickering",
       "motion_smoothness", "dynamic_degree", "aesthetic_quality", "imaging_quality",
       "appearance_style", "temporal_style", "overall_consistency")
ABS_TOL = 1e-5
EXACT = ("temporal_flickering",)
_RUNNER_IN_RUNFILES = "benchmarks/vbench/run"
_ENV_DROP = ("RUNFILES_DIR", "RUNFILES_MANIFEST_FILE", "PYTHONPATH", "PYTHONSAFEPATH")
_STILL = ("temporal_flickering",)  # its prompts are still scenes
SECONDS = "seconds:vbench/"
DRIVER = r"""
import importlib, json, os, sys, time
import torch
import vbench
from vbench import VBench
videos, out, dims = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
seconds = {}
def timed(dim, fn):
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            seconds[dim] = time.perf_counter() - start
    return wrapper
for dim in dims:
    module = importlib.import_module("vbench." + dim)
    setattr(module, "compute_" + dim, timed(dim, getattr(module, "compute_" + dim)))
suite = os.path.join(os.path.dirname(vbench.__file__), "VBench_full_info.json")
start = time.perf_counter()
VBench(torch.device("cpu"), suite, out).evaluate(
    videos_path=videos, name="official", dimension_list=dims, local=True, read_frame=False,
    mode="vbench_standard", imaging_quality_preprocessing_mode="longer")
seconds["evaluate"] = time.perf_counter() - start
json.dump(seconds, open(os.path.join(out, "seconds.json"), "w"))
"""

_WORK = flags.DEFINE_string("work_dir", None, "Weights, videos and outputs (reused).",
                            required=True)
_OFFICIAL_PYTHON = flags.DEFINE_string(
    "official_python", None, "The Python of a venv with vbench 0.1.5 (and openai/CLIP, "
    "pyiqa, decord) installed; unset: ours only.")
_DINO_HUB = flags.DEFINE_string("dino_hub_dir", None, "A facebookresearch/dino checkout "
                                "(hubconf.py), for the official subject_consistency.")
_RUNNER = flags.DEFINE_string("runner", None, "Our runner binary (default: "
                              "//benchmarks/vbench:run from the runfiles).")
_SEED = flags.DEFINE_integer("seed", 20261208, "The weights' seed.")
_PER_PROMPT = flags.DEFINE_integer("videos_per_prompt", 1, "Videos per prompt (1-5).",
                                   lower_bound=1, upper_bound=5)
_WIDTH = flags.DEFINE_integer("width", 512, "Video width.")
_HEIGHT = flags.DEFINE_integer("height", 320, "Video height.")
_FRAMES = flags.DEFINE_integer("frames", 16, "Frames per video.")
_FPS = flags.DEFINE_float("fps", 8.0, "Frame rate.")
_ROUNDS = flags.DEFINE_integer("rounds", 2, "Timed rounds of each side.", lower_bound=1)
_SIDES = flags.DEFINE_list("sides", ["official", "worldeval"],
                           "Which sides run, in round 1's order.")


def _user_path(value: str) -> pathlib.Path:
    base = os.environ.get("BUILD_WORKING_DIRECTORY", os.getcwd())
    return pathlib.Path(base, os.path.expanduser(value)).resolve()


def _runner_path() -> str:
    if _RUNNER.value:
        return str(_user_path(_RUNNER.value))
    for root in (pathlib.Path(__file__).resolve().parents[2], pathlib.Path(__file__).parents[2],
                 os.environ.get("RUNFILES_DIR")):
        for candidate in (pathlib.Path(root or ".") / _RUNNER_IN_RUNFILES,
                          pathlib.Path(root or ".") / "worldeval" / _RUNNER_IN_RUNFILES):
            if root and candidate.is_file():
                return str(candidate)
    raise app.UsageError("cannot find //benchmarks/vbench:run; pass --runner")


def chosen_prompts() -> List[prompt_suite.Entry]:
    """The first entry of the official suite per distinct set of the ten dimensions it
    lists (six sets: every dimension covered), skipping prompts that repeat or have '/'."""
    seen, counts, out = set(), {}, []
    for entry in prompt_suite.load().entries:
        counts[entry.prompt_en] = counts.get(entry.prompt_en, 0) + 1
    for entry in prompt_suite.load().entries:
        dims = frozenset(entry.dimension) & set(TEN)
        if dims and dims not in seen and counts[entry.prompt_en] == 1 \
                and "/" not in entry.prompt_en:
            seen.add(dims)
            out.append(entry)
    return out


def make_videos(folder: pathlib.Path) -> int:
    if folder.is_dir() and any(folder.glob("*.mp4")):
        print(f"reusing the videos in {folder} (the size flags are not checked against them)")
        return len(list(folder.glob("*.mp4")))
    n = 0
    for p, entry in enumerate(chosen_prompts()):
        still = set(entry.dimension) & set(_STILL)
        for i in range(_PER_PROMPT.value):
            make = mirabench_clips.static_clip if still else mirabench_clips.parallax_clip
            frames = make(_FRAMES.value, 100 * p + i, _HEIGHT.value, _WIDTH.value)
            fixture_io.write_mp4(folder / f"{entry.prompt_en}-{i}.mp4", frames, _FPS.value)
            n += 1
    print(f"wrote {n} videos ({_WIDTH.value}x{_HEIGHT.value}, {_FRAMES.value} frames at "
          f"{_FPS.value} fps) in {folder}")
    return n


def make_weights(folder: pathlib.Path) -> pathlib.Path:
    cache = folder / vbench_weights.OFFICIAL_CACHE
    if not (cache / "ViCLIP").is_dir():
        start = time.perf_counter()
        ours = vbench_weights.write_ours(folder / "ours", _SEED.value)
        vbench_weights.write_official(folder, ours, _SEED.value)
        print(f"wrote the weights (seed {_SEED.value}) in {time.perf_counter() - start:.0f} s")
    hub = cache / vbench_weights.DINO_HUB_CODE
    if _DINO_HUB.value and not hub.exists():
        hub.parent.mkdir(parents=True, exist_ok=True)
        hub.symlink_to(_user_path(_DINO_HUB.value), target_is_directory=True)
    return folder


def timed(name: str, argv: List[str], env: Dict[str, str], log: pathlib.Path) -> dict:
    """Runs argv; wall s, user+sys CPU s and peak RSS MiB of it and its children."""
    with open(log, "wb") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        tail = log.read_text(errors="replace")[-3000:]
        raise RuntimeError(f"{name} failed (log {log}):\n{tail}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
            "rss": usage.ru_maxrss / 1024.0}


def per_video(results_json: pathlib.Path) -> Dict[str, Dict[str, float]]:
    """{dimension: {video file name: value}} of an {name}_eval_results.json."""
    data = json.loads(results_json.read_text())
    return {dim: {os.path.basename(r["video_path"]): float(r["video_results"])
                  for r in value[1]} for dim, value in data.items()}


def our_seconds(out: pathlib.Path) -> Dict[str, float]:
    """Per dimension, the sum of the rows' seconds:vbench/<dimension> diagnostics (model
    loads are not in them: model_recipe.prepare builds the models before the first video;
    the official compute_<dimension> times include its loads and decodes)."""
    total: Dict[str, float] = {}
    for line in (out / "per_sample_scores.jsonl").read_text().splitlines():
        for key, value in json.loads(line).get("diagnostics", {}).items():
            if key.startswith(SECONDS):
                dim = key[len(SECONDS):]
                total[dim] = total.get(dim, 0.0) + float(value)
    return total


def compare(official: pathlib.Path, ours: pathlib.Path) -> List[str]:
    a, b = per_video(official), per_video(ours)
    lines, worst = [], True
    for dim in TEN:
        x, y = a.get(dim, {}), b.get(dim, {})
        if set(x) != set(y):
            lines.append(f"{dim}: videos differ: official {sorted(x)} ours {sorted(y)}")
            worst = False
            continue
        diffs = [abs(x[v] - y[v]) for v in x]
        rels = [abs(x[v] - y[v]) / max(abs(x[v]), 1e-30) for v in x]
        d, r = max(diffs, default=0.0), max(rels, default=0.0)
        ok = d == 0.0 if dim in EXACT else (d <= ABS_TOL or r <= ABS_TOL)
        worst &= ok
        lines.append(f"{dim:<24} {len(x):>3} videos  max |diff| {d:.3g}  max rel {r:.3g}  "
                     f"{'OK' if ok else 'MISMATCH'}"
                     + "".join(f"\n    {v}: official {x[v]!r} ours {y[v]!r}"
                               for v in sorted(x) if not ok))
    lines.append("all equal within the tolerances" if worst else "NUMBERS DIFFER")
    return lines


def main(argv):
    if len(argv) > 1:
        raise app.UsageError("unexpected arguments: " + " ".join(argv[1:]))
    work = _user_path(_WORK.value)
    weights = make_weights(work / "weights")
    videos_dir = work / "videos"
    count = make_videos(videos_dir)
    env = {k: v for k, v in os.environ.items() if k not in _ENV_DROP}
    official_env = dict(env, VBENCH_CACHE_DIR=str(weights / vbench_weights.OFFICIAL_CACHE),
                        TORCH_HOME=str(weights / vbench_weights.OFFICIAL_TORCH_HOME))
    commands = {}
    if "official" in _SIDES.value and _OFFICIAL_PYTHON.value:
        commands["official"] = lambda out: (
            [_OFFICIAL_PYTHON.value, "-c", DRIVER, str(videos_dir), str(out), ",".join(TEN)],
            official_env, out / "official_eval_results.json")
    if "worldeval" in _SIDES.value:
        runner = _runner_path()
        commands["worldeval"] = lambda out: (
            [runner, f"--videos_path={videos_dir}", f"--output_dir={out}",
             f"--dimensions={','.join(TEN)}", "--device=cpu", "--offline",
             f"--checkpoint_dir={weights / 'ours'}", "--name=ours"],
            env, out / "ours_eval_results.json")
    sides = [s for s in _SIDES.value if s in commands]  # round 1's order
    runs: Dict[str, List[dict]] = {s: [] for s in sides}
    print(f"{count} videos; nproc {os.cpu_count()}; load before {os.getloadavg()}", flush=True)
    for r in range(_ROUNDS.value):
        shift = r % len(sides)
        for side in sides[shift:] + sides[:shift]:
            out = work / f"out-{side}-{r}"
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir(parents=True)
            argv_, env_, results = commands[side](out)
            load = os.getloadavg()
            result = timed(side, argv_, env_, work / f"{side}-{r}.log")
            result.update(load_before=load, load_after=os.getloadavg(), results=str(results),
                          seconds=(json.loads((out / "seconds.json").read_text())
                                   if side == "official" else our_seconds(out)))
            runs[side].append(result)
            print(f"round {r + 1}: {side:<9} {result['wall']:7.1f} s wall {result['cpu']:7.1f} s "
                  f"CPU  peak RSS {result['rss']:6.0f} MiB  load {load[0]:.2f} -> "
                  f"{result['load_after'][0]:.2f}", flush=True)
    (work / "runs.json").write_text(json.dumps(runs, indent=1))
    print(f"\n{count} videos, {_ROUNDS.value} round(s), medians; load after {os.getloadavg()}")
    print(f"{'side':<10}{'wall s':>9}{'CPU s':>9}{'RSS MiB':>9}{'videos/min':>12}")
    per_min = {}
    for side, results in runs.items():
        wall = statistics.median(x["wall"] for x in results)
        per_min[side] = 60.0 * count / wall
        print(f"{side:<10}{wall:>9.1f}{statistics.median(x['cpu'] for x in results):>9.1f}"
              f"{max(x['rss'] for x in results):>9.0f}{per_min[side]:>12.2f}")
    for side, results in runs.items():
        dims = sorted(set().union(*(x["seconds"] for x in results)))
        print(f"{side} seconds per dimension (median): " + ", ".join(
            f"{d} {statistics.median(x['seconds'].get(d, 0.0) for x in results):.1f}"
            for d in dims))
    if len(per_min) == 2:
        print(f"speed-up (worldeval / official videos per minute): "
              f"{per_min['worldeval'] / per_min['official']:.2f}x")
        print("\n".join(compare(pathlib.Path(runs["official"][0]["results"]),
                                pathlib.Path(runs["worldeval"][0]["results"]))))


if __name__ == "__main__":
    app.run(main)
