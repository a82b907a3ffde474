"""Measures MemoBench Step 1 speed: seconds per clip for each metric family, clips/minute.

    bazel run //tools/bench:memobench_speed -- --flow_backend=dis
    bazel run //tools/bench:memobench_speed -- --generated_dir=... --data_root=... --limit=20

Without --generated_dir it runs on the bundled sample (tiny frames: the figures then
say little about real clips; pass real-sized outputs for numbers worth quoting). It runs
the real runner in-process, then reads the per-family timings every SampleScore carries
(diagnostics "seconds:<family>") and the clip totals.
"""

import collections
import pathlib
import statistics
import tempfile
import time

from absl import app
from absl import flags

from benchmarks.common import flags as common_flags
from benchmarks.memobench import bundled_sample
from benchmarks.memobench import clip_eval
from benchmarks.memobench import runner
from benchmarks.memobench.step1.prepare import Step1Settings
from metrics import cli_support
from proto import schema
from proto import scorecard_pb2

_GENERATED_DIR = flags.DEFINE_string("generated_dir", None, "Model output root (Synthetic/, Real/).")
_DATA_ROOT = flags.DEFINE_string("data_root", None, "MemoBench data folder.")
_MODE = flags.DEFINE_enum("mode", "both", runner.MODES, "Which split to evaluate.")
_FLOW = flags.DEFINE_enum("flow_backend", "dis", ["raft", "dis"], "MotionSmoothness flow backend.")
# Also: the runners' shared flags (--limit, --device, --checkpoint_dir, --offline, ...).


def report(samples, wall_seconds: float) -> str:
    """A table of per-family seconds per clip, then the overall rate."""
    per_family = collections.defaultdict(list)
    for sample in samples:
        for key, value in sample.diagnostics.items():
            if key.startswith(clip_eval.SECONDS):
                per_family[key[len(clip_eval.SECONDS):]].append(float(value))
    ok = [s for s in samples if not s.error]
    lines = [f"{len(ok)} clips evaluated ({len(samples) - len(ok)} failed) in {wall_seconds:.1f} s"]
    lines.append(f"  {'family':<22} {'mean s/clip':>12} {'max s/clip':>11}")
    for name, values in sorted(per_family.items()):
        lines.append(f"  {name:<22} {statistics.fmean(values):>12.3f} {max(values):>11.3f}")
    if ok:
        per_clip = statistics.fmean(s.seconds for s in ok)
        lines.append(f"  {'whole clip':<22} {per_clip:>12.3f} {max(s.seconds for s in ok):>11.3f}")
        lines.append(f"throughput: {60.0 * len(ok) / wall_seconds:.1f} clips/minute "
                     "(one process; includes model loading)")
    return "\n".join(lines)


def main(argv):
    if len(argv) > 1:
        raise app.UsageError("unexpected arguments: " + " ".join(argv[1:]), exitcode=2)
    out = pathlib.Path(tempfile.mkdtemp(prefix="memobench-speed-"))
    if _GENERATED_DIR.value:
        gen, data = cli_support.user_path(_GENERATED_DIR.value), cli_support.user_path(_DATA_ROOT.value)
        model = gen.name
    else:
        inputs = bundled_sample.extract()
        gen, data, model = inputs.generated_dir, inputs.data_root, inputs.model_name
        print("bundled sample (tiny 96x128 frames): figures are not representative of real clips")
    common = common_flags.common_config()
    config = runner.MemobenchConfig(
        common=common, data_root=data, output_dir=out, model_name=model, mode=_MODE.value,
        generated_synthetic_dir=gen / "Synthetic", generated_real_dir=gen / "Real",
        steps=(runner.STEP1,),
        step1=Step1Settings(device=common.device, checkpoint_dir=common.checkpoint_dir,
                            offline=common.offline, flow_backend=_FLOW.value))
    start = time.perf_counter()
    runner.run(config)
    wall = time.perf_counter() - start
    samples = list(schema.read_jsonl(out / "per_sample_scores.jsonl", scorecard_pb2.SampleScore))
    print(report(samples, wall))
    print(f"outputs: {out}")


if __name__ == "__main__":
    app.run(main, flags_parser=cli_support.parse_flags)
