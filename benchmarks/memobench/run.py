"""MemoBench Step 1 runner.

    bazel run //benchmarks/memobench:run -- --generated_dir=output/MyModel \\
        --data_root=/path/to/MemoBench/data --model_name=MyModel

With no flags it evaluates the bundled sample (a small synthetic MemoBench-shaped
dataset built by //tools/fixtures) and says so. Exit codes: 0 done (some metrics may be
unavailable), 2 unusable input or configuration, 1 internal error.
"""

import os

from absl import flags

from benchmarks.common import app_main
from benchmarks.common import errors
from benchmarks.common import flags as common_flags
from benchmarks.common import paths
from benchmarks.common import summary
from benchmarks.memobench import bundled_sample
from benchmarks.memobench import runner
from benchmarks.memobench.step1 import prepare as step1_prepare

_ENV = "WORLDFOUNDRY_MEMOBENCH_"


def _env(name: str):
    return os.environ.get(name) or None


GENERATED_DIR = flags.DEFINE_string(
    "generated_dir", _env("WORLDFOUNDRY_GENERATED_ARTIFACT_DIR"),
    "A model's output root holding Synthetic/ and/or Real/ (output/{model}/ in MemoBench's "
    "layout). Env: WORLDFOUNDRY_GENERATED_ARTIFACT_DIR.")
GENERATED_SYNTHETIC_DIR = flags.DEFINE_string(
    "generated_synthetic_dir", _env(_ENV + "GENERATED_SYNTHETIC_DIR"),
    "The synthetic clips' root (overrides <generated_dir>/Synthetic). "
    "Env: WORLDFOUNDRY_MEMOBENCH_GENERATED_SYNTHETIC_DIR.")
GENERATED_REAL_DIR = flags.DEFINE_string(
    "generated_real_dir", _env(_ENV + "GENERATED_REAL_DIR"),
    "The real clips' root (overrides <generated_dir>/Real). "
    "Env: WORLDFOUNDRY_MEMOBENCH_GENERATED_REAL_DIR.")
DATA_ROOT = flags.DEFINE_string(
    "data_root", _env(_ENV + "DATA_ROOT"),
    "MemoBench's data/ folder (or the MemoBench checkout containing it): "
    "Synthetic_processed/, Real_Raw/ and the phase sheets. Env: WORLDFOUNDRY_MEMOBENCH_DATA_ROOT.")
MODEL_NAME = flags.DEFINE_string(
    "model_name", _env(_ENV + "MODEL_NAME"),
    "The model's name in the scorecard. Env: WORLDFOUNDRY_MEMOBENCH_MODEL_NAME.")
MODE = flags.DEFINE_enum(
    "mode", "both", runner.MODES, "Which split to evaluate: synthetic, real or both.")
CLIP = flags.DEFINE_string("clip", None, "Evaluate only this clip id (e.g. Barnyard_001, 001).")
SCENE = flags.DEFINE_string("scene", None, "Evaluate only this scene (e.g. Barnyard; 'real').")
SYNTHETIC_SHEET = flags.DEFINE_string(
    "synthetic_sheet", None, "Synthetic phase sheet (.xlsx/.csv); default "
    "<data_root>/Synthetic_processed/Synthetic_ExitReenter.xlsx.")
REAL_SHEET = flags.DEFINE_string(
    "real_sheet", None, "Real phase sheet (.xlsx/.csv); default "
    "<data_root>/Real_Raw/Real_ExitReenter.xlsx.")

FLOW_BACKEND = flags.DEFINE_enum(
    "flow_backend", "raft", ["raft", "dis"],
    "MotionSmoothness optical flow: raft (official: torchvision RAFT large) or dis (OpenCV "
    "DIS, weight-free, recorded in the scorecard as NOT official).")
CAMERA_BACKEND = flags.DEFINE_enum(
    "camera_backend", "mapanything", ["mapanything", "classical"],
    "CameraControllability pose estimator: mapanything (official; needs the mapanything "
    "package and weights) or classical (feature-match two-view rotation, weight-free, NOT "
    "official).")
RAFT_CHECKPOINT = flags.DEFINE_string(
    "raft_checkpoint", None, "RAFT large weights (raft_large_C_T_SKHT_V2-ff5fadd5.pth).")
LPIPS_ALEXNET_CHECKPOINT = flags.DEFINE_string(
    "lpips_alexnet_checkpoint", None, "torchvision AlexNet weights for LPIPS "
    "(alexnet-owt-7be5be79.pth).")
LPIPS_CHECKPOINT = flags.DEFINE_string(
    "lpips_checkpoint", None, "LPIPS v0.1 AlexNet linear-layer weights (alex.pth).")

_RECORDED = ("generated_dir", "generated_synthetic_dir", "generated_real_dir", "data_root",
             "model_name", "mode", "clip", "scene", "synthetic_sheet", "real_sheet",
             "output_dir", "device", "max_side", "sample_step", "limit", "metrics", "resume",
             "checkpoint_dir", "offline", "flow_backend", "camera_backend", "raft_checkpoint",
             "lpips_alexnet_checkpoint", "lpips_checkpoint")


def _opt_path(value):
    return paths.user_path(value) if value else None


def _config() -> runner.MemobenchConfig:
    common = common_flags.common_config()
    bundled = not (GENERATED_DIR.value or GENERATED_SYNTHETIC_DIR.value
                   or GENERATED_REAL_DIR.value or DATA_ROOT.value)
    if bundled:
        inputs = bundled_sample.extract()
        print(f"No --generated_dir/--data_root given: evaluating the bundled sample "
              f"(model {inputs.model_name}, extracted to {inputs.root}).")
        gen_root, data_root, model = inputs.generated_dir, inputs.data_root, inputs.model_name
    else:
        gen_root = _opt_path(GENERATED_DIR.value)
        data_root = _opt_path(DATA_ROOT.value)
        model = None
        if data_root is None:
            raise errors.InputError("--data_root", "MemoBench's data folder", "none given")
    model = MODEL_NAME.value or model or (gen_root.name if gen_root else "model")
    syn = _opt_path(GENERATED_SYNTHETIC_DIR.value) or (gen_root / "Synthetic" if gen_root else None)
    real = _opt_path(GENERATED_REAL_DIR.value) or (gen_root / "Real" if gen_root else None)
    output = _opt_path(common.output_dir or f"worldeval_outputs/memobench/{model}")
    return runner.MemobenchConfig(
        common=common, data_root=data_root, output_dir=output, model_name=model,
        mode=MODE.value, generated_synthetic_dir=syn, generated_real_dir=real,
        clip=CLIP.value, scene=SCENE.value, synthetic_sheet=_opt_path(SYNTHETIC_SHEET.value),
        real_sheet=_opt_path(REAL_SHEET.value), bundled_sample=bundled,
        step1=step1_prepare.Step1Settings(
            device=common.device,
            checkpoint_dir=str(_opt_path(common.checkpoint_dir)) if common.checkpoint_dir else None,
            offline=common.offline, flow_backend=FLOW_BACKEND.value,
            camera_backend=CAMERA_BACKEND.value,
            checkpoints={name: str(_opt_path(value)) for name, value in (
                ("raft_large", RAFT_CHECKPOINT.value), ("alexnet", LPIPS_ALEXNET_CHECKPOINT.value),
                ("lpips_alex_v0.1", LPIPS_CHECKPOINT.value)) if value}),
        recorded_flags=common_flags.flag_values_for_record(_RECORDED))


def main(argv):
    if len(argv) > 1:
        raise errors.InputError(" ".join(argv[1:]), "flags only (--name=value)",
                                         "extra arguments")
    card = runner.run(_config())
    print(summary.format_summary(card))


if __name__ == "__main__":
    app_main.run(main)
