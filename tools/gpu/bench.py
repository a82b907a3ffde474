"""Times a benchmark runner as a whole process and records its scorecard's per-metric cost.

    python3 -m tools.gpu.bench vbench --work_dir=W --device=cuda --output_json=T.json
    python3 -m tools.gpu.bench physics_iq --work_dir=W --output_json=T.json

For the GPU session (tools/gpu/session.sh), also its CPU dry run. Each call adds one entry
(`vbench` or `physics_iq`; `env` only the context) to --output_json (read, updated, rewritten), so one file holds
the session's timings:
  - wall_s, cpu_s (user+sys of the runner and its reaped children) and peak_rss_bytes
    (the largest child's, os.wait4), exit_code, the command, load averages before/after;
  - metrics: per MetricResult of scorecard.json, `seconds`, `peak_host_bytes`,
    `peak_device_bytes` (proto/scorecard.proto fields 11, 19, 20; 0 = not measured),
    available, value, sample_count, unavailable_reason.
vbench: writes the seeded full-size weight set with `python -m tools.bench.vbench_weights
--output_dir=W/weights --seed=S` (once per seed: reused after a complete write), then
--videos_per_prompt videos (--width x --height, --frames at 8 fps) for the first prompt of
the official suite per distinct set of the ten computed dimensions (standard-mode names,
{prompt}-{i}.mp4: textured planes drifting, still ones for temporal_flickering's prompts),
then `python -m benchmarks.vbench.run --device=... --offline --checkpoint_dir=W/weights/ours`;
a selected dimension without a value fails the step (its timing would be missing).
physics_iq: `python -m benchmarks.physics_iq.run` with no input flags (its synthetic tree
made on the fly; weight-free, CPU).
--python is the interpreter the children run (`python3` on the device machine; the
session_env launcher in the dry run). Exit 1 when the runner failed (the entry says why).
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import time
from typing import Dict, List

TEN = ("subject_consistency", "background_consistency", "temporal_flickering",
       "motion_smoothness", "dynamic_degree", "aesthetic_quality", "imaging_quality",
       "appearance_style", "temporal_style", "overall_consistency")
_STILL = ("temporal_flickering",)
_FPS = 8.0


def timed(argv: List[str], log: pathlib.Path, env: Dict[str, str] = None) -> Dict:
    """Runs argv with its output in `log`; wall, CPU and peak RSS of it and its children."""
    load = os.getloadavg()
    with open(log, "ab") as out:
        out.write(f"$ {' '.join(argv)}\n".encode())
        out.flush()
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    return {"command": argv, "exit_code": os.waitstatus_to_exitcode(status),
            "wall_s": round(wall, 3), "cpu_s": round(usage.ru_utime + usage.ru_stime, 3),
            "peak_rss_bytes": usage.ru_maxrss * 1024, "load_before": load,
            "load_after": os.getloadavg()}


def metric_costs(scorecard: pathlib.Path) -> Dict[str, Dict]:
    """Per metric id of the scorecard: its cost fields and outcome (module docstring)."""
    from google.protobuf import json_format  # pylint: disable=import-outside-toplevel
    from proto import scorecard_pb2  # pylint: disable=import-outside-toplevel
    card = json_format.Parse(scorecard.read_text(), scorecard_pb2.Scorecard(),
                             ignore_unknown_fields=True)
    out = {}
    for m in card.metrics:
        key = f"{m.split}/{m.id}" if m.split else m.id
        out[key] = {"seconds": m.seconds, "peak_host_bytes": m.peak_host_bytes,
                    "peak_device_bytes": m.peak_device_bytes, "available": m.available,
                    "value": m.value if m.HasField("value") else None,
                    "sample_count": m.sample_count,
                    "unavailable_reason": m.unavailable_reason}
    return out


def chosen_prompts() -> List:
    """The first entry of the official suite per distinct set of the ten dimensions it
    lists (every dimension covered), skipping repeated prompts and prompts with '/'."""
    from benchmarks.vbench.suite import prompt_suite  # pylint: disable=import-outside-toplevel
    entries = prompt_suite.load().entries
    counts: Dict[str, int] = {}
    for e in entries:
        counts[e.prompt_en] = counts.get(e.prompt_en, 0) + 1
    seen, out = set(), []
    for e in entries:
        dims = frozenset(e.dimension) & set(TEN)
        if dims and dims not in seen and counts[e.prompt_en] == 1 and "/" not in e.prompt_en:
            seen.add(dims)
            out.append(e)
    return out


def write_videos(folder: pathlib.Path, per_prompt: int, frames: int, height: int,
                 width: int, dimensions: List[str]) -> int:
    """VBench-shaped videos (module docstring) for the prompts that list any of
    `dimensions`; returns how many."""
    # pylint: disable=import-outside-toplevel
    from tools.fixtures import fixture_io
    from tools.fixtures import mirabench_clips
    folder.mkdir(parents=True, exist_ok=True)
    n = 0
    for p, entry in enumerate(chosen_prompts()):
        if not set(entry.dimension) & set(dimensions):
            continue
        make = (mirabench_clips.static_clip if set(entry.dimension) & set(_STILL)
                else mirabench_clips.parallax_clip)
        for i in range(per_prompt):
            fixture_io.write_mp4(folder / f"{entry.prompt_en}-{i}.mp4",
                                 make(frames, 100 * p + i, height, width), _FPS)
            n += 1
    return n


def vbench(args, log: pathlib.Path) -> Dict:
    work = pathlib.Path(args.work_dir)
    weights = work / "weights"
    entry: Dict = {"device": args.device, "seed": args.seed}
    done = weights / f"complete-seed-{args.seed}"
    if not done.is_file():
        made = timed([args.python, "-m", "tools.bench.vbench_weights",
                      f"--output_dir={weights}", f"--seed={args.seed}"], log)
        entry["weights"] = made
        if made["exit_code"]:
            entry["error"] = f"the weight writer failed (exit {made['exit_code']}; see the log)"
            return entry
        done.write_text("")
    dims = args.dimensions.split(",")
    start = time.perf_counter()
    count = write_videos(work / "videos", args.videos_per_prompt, args.frames, args.height,
                         args.width, dims)
    entry["videos"] = {"count": count, "frames": args.frames, "height": args.height,
                       "width": args.width, "fps": _FPS,
                       "seconds_to_write": round(time.perf_counter() - start, 3)}
    out = work / "out-vbench"
    entry["run"] = timed([args.python, "-m", "benchmarks.vbench.run",
                          f"--videos_path={work / 'videos'}", f"--output_dir={out}",
                          f"--dimensions={args.dimensions}", f"--device={args.device}",
                          "--offline", f"--checkpoint_dir={weights / 'ours'}", "--name=gpu"],
                         log)
    entry = _with_card(entry, out)
    missing = {d: entry["metrics"][d]["unavailable_reason"] for d in dims
               if not entry.get("metrics", {}).get(d, {}).get("available", True)}
    if missing and "error" not in entry:
        entry["error"] = f"selected dimensions without a value: {missing}"
    return entry


def physics_iq(args, log: pathlib.Path) -> Dict:
    out = pathlib.Path(args.work_dir) / "out-physics_iq"
    entry: Dict = {"device": "cpu", "input": "the runner's synthetic tree (no input flags)"}
    entry["run"] = timed([args.python, "-m", "benchmarks.physics_iq.run",
                          f"--output_dir={out}"], log)
    return _with_card(entry, out)


def _with_card(entry: Dict, out: pathlib.Path) -> Dict:
    card = out / "scorecard.json"
    if entry["run"]["exit_code"]:
        entry["error"] = f"the runner failed (exit {entry['run']['exit_code']}; see the log)"
    elif not card.is_file():
        entry["error"] = f"no {card}"
    else:
        entry["metrics"] = metric_costs(card)
    return entry


def merge(path: pathlib.Path, name: str, entry: Dict, context: Dict) -> None:
    """Adds `entry` under `name` to the JSON file at `path` (created when absent)."""
    data = json.loads(path.read_text()) if path.is_file() else {}
    data.setdefault("context", {}).update(context)
    if name == "context":
        data["context"].update(entry)
    else:
        data[name] = entry
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


def context() -> Dict:
    """The machine and the versions the timings were taken with."""
    info = {"nproc": os.cpu_count(), "python": sys.version.split()[0],
            "load": os.getloadavg()}
    try:
        import torch  # pylint: disable=import-outside-toplevel
        info.update(torch=torch.__version__, torch_cuda=torch.version.cuda,
                    cuda_available=torch.cuda.is_available())
        if torch.cuda.is_available():
            props = torch.cuda.get_device_properties(0)
            info.update(cuda_device=props.name, cuda_memory_bytes=props.total_memory)
    except ImportError as e:
        info["torch"] = f"not importable: {e}"
    return info


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("benchmark", choices=("env", "vbench", "physics_iq"))
    parser.add_argument("--work_dir", required=True)
    parser.add_argument("--output_json", required=True)
    parser.add_argument("--log", help="Where the children's output goes (default "
                        "<work_dir>/<benchmark>.log).")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--seed", type=int, default=20261208)
    parser.add_argument("--dimensions", default=",".join(TEN))
    parser.add_argument("--videos_per_prompt", type=int, default=5)
    parser.add_argument("--frames", type=int, default=16)
    parser.add_argument("--height", type=int, default=320)
    parser.add_argument("--width", type=int, default=512)
    args = parser.parse_args(argv)
    pathlib.Path(args.work_dir).mkdir(parents=True, exist_ok=True)
    if args.benchmark == "env":
        info = context()
        merge(pathlib.Path(args.output_json), "context", info, {})
        print(json.dumps(info, indent=1))
        return 0 if info.get("cuda_available") or args.device == "cpu" else 1
    log = pathlib.Path(args.log or pathlib.Path(args.work_dir) / f"{args.benchmark}.log")
    entry = (vbench if args.benchmark == "vbench" else physics_iq)(args, log)
    merge(pathlib.Path(args.output_json), args.benchmark, entry, context())
    summary = {k: entry["run"][k] for k in ("wall_s", "cpu_s", "exit_code")} \
        if "run" in entry else {}
    print(f"{args.benchmark}: {summary} {entry.get('error', '')}".rstrip())
    for key, m in sorted(entry.get("metrics", {}).items()):
        if m["unavailable_reason"].startswith("not selected"):
            continue
        print(f"  {key:<36} {m['seconds']:9.2f} s  host {m['peak_host_bytes'] / 2**20:9.0f} MiB"
              f"  device {m['peak_device_bytes'] / 2**20:9.0f} MiB"
              f"  {'' if m['available'] else 'unavailable: ' + m['unavailable_reason'][:80]}")
    return 1 if "error" in entry else 0


if __name__ == "__main__":
    sys.exit(main())
