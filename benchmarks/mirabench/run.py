"""MiraBench runner: scores the videos of a meta CSV on MiraBench's 17 paper metrics
(temporal consistency, dynamics, 3D consistency, quality, ViCLIP alignment, FVD, FID,
KID) and the four extras the official calculate_score.py also writes.

    ./bazelw run //benchmarks/mirabench:run          # the bundled sample
    ./bazelw run //benchmarks/mirabench:run -- --meta_csv=F --generated_dir=D \\
        --gt_meta_csv=G --gt_dir=GD --output_dir=O

FVD, KVD, FID and KID compare with the ground-truth set (--gt_meta_csv, --gt_dir).
Writes the official video_score.csv and average_score.csv beside the scorecard. A metric
whose checkpoint is missing is reported unavailable, and the summary gives one fix per
cause. Flag defaults: WORLDFOUNDRY_MIRABENCH_<FLAG>; details: README.md. Exit codes:
0 done, 2 unusable input or configuration, 1 internal error.
"""

import dataclasses
import os

from absl import flags

from benchmarks.common import app_main
from benchmarks.common import errors
from benchmarks.common import flags as common_flags
from benchmarks.common import paths
from benchmarks.common import summary
from benchmarks.mirabench import bundled_sample
from benchmarks.mirabench import runner
from benchmarks.mirabench import set_metrics

_ENV = "WORLDFOUNDRY_MIRABENCH_"


def _env(name):
    return os.environ.get(_ENV + name) or None


META_CSV = flags.DEFINE_string(
    "meta_csv", _env("META_CSV"), "The generated set's meta CSV (video_idx, video_path, "
    "six captions). Env: WORLDFOUNDRY_MIRABENCH_META_CSV.")
GENERATED_DIR = flags.DEFINE_string(
    "generated_dir", _env("GENERATED_DIR"), "Folder of <video_idx>.mp4 videos or "
    "<video_idx>/ frame folders (default: the rows' video_path). "
    "Env: WORLDFOUNDRY_MIRABENCH_GENERATED_DIR.")
GT_META_CSV = flags.DEFINE_string(
    "gt_meta_csv", _env("GT_META_CSV"), "The GT set's meta CSV (for FVD/KVD, FID/KID). "
    "Env: WORLDFOUNDRY_MIRABENCH_GT_META_CSV.")
GT_DIR = flags.DEFINE_string(
    "gt_dir", _env("GT_DIR"), "The GT videos or frame folders, as --generated_dir. "
    "Env: WORLDFOUNDRY_MIRABENCH_GT_DIR.")
MODEL_NAME = flags.DEFINE_string(
    "model_name", _env("MODEL_NAME"), "The model's name (default: --generated_dir's "
    "folder name). Env: WORLDFOUNDRY_MIRABENCH_MODEL_NAME.")
STRICT = flags.DEFINE_boolean(
    "strict", False, "Fail (exit 2) when a meta row has no video; otherwise coverage "
    "lists it.")
SEED_3D = flags.DEFINE_integer(
    "consistency_3d_seed", 0, "OpenCV RNG seed set before each 3D-consistency pair "
    "(upstream is unseeded, so not reproducible run to run).", lower_bound=0)
REPEATS_3D = flags.DEFINE_integer(
    "consistency_3d_repeats", 1, "Run 3D consistency with K seeds (seed..seed+K-1) and "
    "report the spread of the mean over them; the value is the first seed's.",
    lower_bound=1)
KID_SEED = flags.DEFINE_integer(
    "kid_seed", set_metrics.DEFAULT_KID_SEED, "Seed of KID's random subsets (upstream: "
    "unseeded).", lower_bound=0)
FID_INPUT = flags.DEFINE_enum(
    "fid_input", set_metrics.OFFICIAL_INPUT, [set_metrics.OFFICIAL_INPUT,
                                              set_metrics.CORRECTED_INPUT],
    "official: ImageNet-normalised tensors through torchmetrics' normalize=True byte() "
    "cast, as upstream (distorted, spec §3.7); corrected: the frames' own uint8 pixels "
    "(NOT the official numbers).")

TRACKING_HISTORY = flags.DEFINE_enum(
    "tracking_history", "official", ["official", "final"],
    "tracking_strength over which CoTracker2 histories: official (every online call's "
    "cumulative history concatenated, early frames counted once per call, as upstream) or "
    "final (the last history only, each frame once: the corrected variant, NOT the "
    "official number).")

AMT_SCALE = flags.DEFINE_float(
    "amt_scale", None, "temporal_motion_smoothness: AMT-S's interpolation scale. Unset: the "
    "official rule, 1 on CPU and on a GPU large enough for the clip, smaller on small GPUs "
    "(min(1, 1024*512/(h*w) * sqrt((VRAM - 2500 MiB) / 1500 MiB)), then "
    "1/floor(16/sqrt(s))*16); set it to the scale a reference run used to compare machines.",
    lower_bound=0.0625, upper_bound=1.0)

_RECORDED = ("meta_csv", "generated_dir", "gt_meta_csv", "gt_dir", "model_name", "strict",
             "consistency_3d_seed", "consistency_3d_repeats", "kid_seed", "fid_input",
             "tracking_history", "amt_scale") + common_flags.RECORDED


def _path(value):
    return paths.user_path(value) if value else None


def _config() -> runner.MiraBenchConfig:
    common = common_flags.common_config()
    if common.checkpoint_dir is None and _env("ASSET_CHECKPOINT_DIR"):
        common = dataclasses.replace(common, checkpoint_dir=_env("ASSET_CHECKPOINT_DIR"))
    bundled = not META_CSV.value
    if bundled:
        sample = bundled_sample.extract()
        summary.announce("No --meta_csv given: evaluating the bundled synthetic sample (two "
                         f"generated and two GT clips, extracted to {sample.root}); not "
                         "MiraBench data.")
        meta, generated, gt_meta, gt_dir = (sample.meta_csv, sample.generated_dir,
                                            sample.gt_meta_csv, sample.gt_dir)
        model = sample.model_name
    else:
        meta, generated = _path(META_CSV.value), _path(GENERATED_DIR.value)
        gt_meta, gt_dir = _path(GT_META_CSV.value), _path(GT_DIR.value)
        model = (generated or meta.parent).name
        if (gt_meta is None) != (gt_dir is None) and gt_meta is None:
            raise errors.InputError("--gt_meta_csv", "the GT meta CSV with --gt_dir",
                                    "none given")
    model = MODEL_NAME.value or model
    output = paths.user_path(common.output_dir or f"worldeval_outputs/mirabench/{model}")
    return runner.MiraBenchConfig(
        common=common, meta_csv=meta, generated_dir=generated, output_dir=output,
        model_name=model, gt_meta_csv=gt_meta, gt_dir=gt_dir, strict=STRICT.value,
        consistency_3d_seed=SEED_3D.value, consistency_3d_repeats=REPEATS_3D.value,
        kid_seed=KID_SEED.value, fid_input=FID_INPUT.value,
        tracking_history=TRACKING_HISTORY.value, amt_scale=AMT_SCALE.value,
        bundled_sample=bundled,
        recorded_flags=common_flags.flag_values_for_record(_RECORDED))


def main(argv):
    app_main.run_benchmark(argv, _config, runner.run, noun="videos")


if __name__ == "__main__":
    app_main.run(main)
