"""WorldScore runner: scores a model's worldscore_output tree on WorldScore's 10 aspects
(7 static, 3 dynamic), its two headlines and the 11 evaluator metrics behind them.

    ./bazelw run //benchmarks/worldscore:run          # the bundled sample
    ./bazelw run //benchmarks/worldscore:run -- \\
        --generated_root=<model_workspace>/worldscore_output \\
        --data_root=<dir holding WorldScore-Dataset/> --output_dir=O

Writes each instance's evaluation.json in the official shape, and worldscore.json once
every aspect is computed. A metric whose checkpoint or package is missing is reported
unavailable, and the summary gives one fix per cause. What it needs: `./bazelw run
//tools:assets -- plan --benchmark=worldscore`; details: README.md. Exit codes: 0 done,
2 unusable input or configuration, 1 internal error.
"""

import dataclasses
import os

from absl import flags

from benchmarks.common import app_main
from benchmarks.common import errors
from benchmarks.common import flags as common_flags
from benchmarks.common import paths
from benchmarks.common import summary
from benchmarks.worldscore import aspects
from benchmarks.worldscore import bundled_sample
from benchmarks.worldscore import runner
from benchmarks.worldscore import staging
from benchmarks.worldscore import style_consistency

_ENV = "WORLDFOUNDRY_WORLDSCORE_"


def _env(*names):
    return next((os.environ[_ENV + n] for n in names if os.environ.get(_ENV + n)), None)


def _default_generated_root():
    workspace = _env("MODEL_PATH")
    return os.path.join(workspace, "worldscore_output") if workspace else None


GENERATED_ROOT = flags.DEFINE_string(
    "generated_root", _default_generated_root(),
    "A model's worldscore_output folder (static/, dynamic/). Env: "
    "WORLDFOUNDRY_WORLDSCORE_MODEL_PATH (its worldscore_output/).")
DATA_ROOT = flags.DEFINE_string(
    "data_root", _env("DATA_PATH", "HF_DATASET_ROOT"),
    "The folder holding WorldScore-Dataset/ (Howieeeee/WorldScore). Env: "
    "WORLDFOUNDRY_WORLDSCORE_DATA_PATH or WORLDFOUNDRY_WORLDSCORE_HF_DATASET_ROOT.")
MODEL_NAME = flags.DEFINE_string(
    "model_name", _env("MODEL_NAME"), "The model's name (default: the generated tree's "
    "parent folder). Env: WORLDFOUNDRY_WORLDSCORE_MODEL_NAME.")
VISUAL_MOVEMENT = flags.DEFINE_list(
    "visual_movement", None, "static and/or dynamic (default: both; static only for a 3D "
    "model: " + ", ".join(aspects.THREED_MODELS) + ").")
GRAM_RESIZE = flags.DEFINE_enum(
    "gram_resize", "auto", style_consistency.RESIZE_CHOICES,
    "style_consistency's Resize: auto (the official rule: 512 with CUDA, 128 without), "
    "512 (the leaderboard's GPU setting) or 128 (the official CPU behaviour, NOT the "
    "leaderboard's).")
STAGE_SOURCE = flags.DEFINE_string(
    "stage_dynamic_source", None, "A video file or a folder of frames to lay out as one "
    "dynamic instance (the first dynamic entry of the dataset) and evaluate: a bounded "
    "run, NOT a benchmark result.")
STAGE_FRAMES = flags.DEFINE_integer(
    "stage_target_frames", None, "With --stage_dynamic_source: how many frames to stage "
    "(the first N).", lower_bound=2)

_RECORDED = ("generated_root", "data_root", "model_name", "visual_movement", "gram_resize",
             "stage_dynamic_source", "stage_target_frames") + common_flags.RECORDED


def _movements(model: str):
    given = tuple(VISUAL_MOVEMENT.value or ())
    bad = [m for m in given if m not in aspects.VISUAL_MOVEMENTS]
    if bad:
        raise errors.InputError("--visual_movement", "static and/or dynamic", ", ".join(bad))
    if given:
        return tuple(m for m in aspects.VISUAL_MOVEMENTS if m in given)
    return (aspects.STATIC,) if model in aspects.THREED_MODELS else aspects.VISUAL_MOVEMENTS


def _config() -> runner.WorldScoreConfig:
    common = common_flags.common_config()
    if common.max_side is not None:
        # WorldScore reads only the PNG frames its metrics need, one file at a time (no
        # whole-video decode to bound), and its dataset's first-frame masks are at the
        # frames' native size (motion_accuracy fails on a size mismatch).
        raise errors.InputError("--max_side", "no value for WorldScore (its instances are "
                                "frame folders read by index at native size, as its masks "
                                "are)", f"--max_side={common.max_side}")
    if common.checkpoint_dir is None and _env("ASSET_CHECKPOINT_DIR"):
        common = dataclasses.replace(common, checkpoint_dir=_env("ASSET_CHECKPOINT_DIR"))
    bundled, staged = not GENERATED_ROOT.value and not STAGE_SOURCE.value, ""
    if bundled:
        inputs = bundled_sample.extract()
        summary.announce("No --generated_root given: evaluating the bundled synthetic sample "
                         "(two static and one dynamic instance, extracted to "
                         f"{inputs.generated_root.parent}); not WorldScore data.")
        generated, data_root, model = inputs.generated_root, inputs.data_root, inputs.model_name
        if not flags.FLAGS["offline"].present:
            common = dataclasses.replace(common, offline=True)
            summary.announce("Bundled sample: nothing is downloaded (metrics whose weights are not "
                  "found locally are reported unavailable); pass --nooffline to fetch them.")
    else:
        if not DATA_ROOT.value:
            raise errors.InputError("--data_root", "the folder holding WorldScore-Dataset/ "
                                    "(huggingface-cli download Howieeeee/WorldScore "
                                    "--repo-type dataset --local-dir D; unzip)", "none given")
        data_root = paths.user_path(DATA_ROOT.value)
        generated = paths.user_path(GENERATED_ROOT.value) if GENERATED_ROOT.value else None
        model = generated.parent.name if generated else "staged"
    model = MODEL_NAME.value or model
    output = paths.user_path(common.output_dir or f"worldeval_outputs/worldscore/{model}")
    movements, staged_keys = _movements(model), None
    if STAGE_SOURCE.value:
        if not STAGE_FRAMES.value:
            raise errors.InputError("--stage_target_frames", "a frame count >= 2 with "
                                    "--stage_dynamic_source", "none given")
        layout_ = staging.stage(paths.user_path(STAGE_SOURCE.value), data_root,
                                output / "staged", STAGE_FRAMES.value)
        generated, staged, staged_keys = (layout_.generated_root, layout_.description,
                                          layout_.keys)
        movements = (aspects.DYNAMIC,)
    return runner.WorldScoreConfig(
        common=common, generated_root=generated, data_root=data_root, output_dir=output,
        model_name=model, movements=movements, gram_resize=GRAM_RESIZE.value,
        bundled_sample=bundled, staged=staged,
        only_keys=staged_keys,
        recorded_flags=common_flags.flag_values_for_record(_RECORDED))


def main(argv):
    app_main.run_benchmark(argv, _config, runner.run, noun="instances")


if __name__ == "__main__":
    app_main.run(main)
