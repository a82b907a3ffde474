"""Physics-IQ Verified runner: scores 1-4 runs (seeds) of a model against the Verified
ground truth as physiq/run_physics_iq.py does, and aggregates them as
aggregate_runs_from_csvs.py (mean and std over runs, the submission card's
reported_scores); writes each run's official CSV and {run}_metrics.json beside the
scorecard.

    ./bazelw run //benchmarks/physics_iq_verified:run   # a synthetic tree, two folders as two runs
    ./bazelw run //benchmarks/physics_iq_verified:run -- --real_dir=R \\
        --generated_dirs=G1,G2,G3,G4 [--descriptions_file=CSV] [--model_name=M]

R is the `physics-IQ-benchmark-verified` folder (Hugging Face
Anates-Labs-Research/Physics-IQ-Verified, gated); each G holds one run's 198 generated 5 s
mp4 files, 0001_... to 0198_... Flag defaults: WORLDFOUNDRY_PHYSICS_IQ_VERIFIED_<FLAG>.
Exit codes: 0 done, 2 unusable input or configuration, 1 internal error.
"""

import os

from absl import flags

from benchmarks.common import app_main
from benchmarks.common import errors
from benchmarks.common import flags as common_flags
from benchmarks.common import paths
from benchmarks.common import summary
from benchmarks.physics_iq import inputs
from benchmarks.physics_iq_verified import runner

_ENV = "WORLDFOUNDRY_PHYSICS_IQ_VERIFIED_"
BUNDLED_RUNS = ("follows", "diverges")


def _env(name):
    return os.environ.get(_ENV + name) or None


REAL_DIR = flags.DEFINE_string(
    "real_dir", _env("REAL_DIR"), "The physics-IQ-benchmark-verified data folder. Env: "
    "WORLDFOUNDRY_PHYSICS_IQ_VERIFIED_REAL_DIR.")
GENERATED_DIRS = flags.DEFINE_list(
    "generated_dirs", _env("GENERATED_DIRS"), "1 to 4 run folders (seeds) of the model, "
    "each with 198 mp4 files 0001_... to 0198_... (upstream names them "
    "<model>-<bpp|op>-run_0N). Env: WORLDFOUNDRY_PHYSICS_IQ_VERIFIED_GENERATED_DIRS.")
DESCRIPTIONS = flags.DEFINE_string(
    "descriptions_file", _env("DESCRIPTIONS_FILE"), "descriptions.csv (default: "
    "<real_dir>/descriptions.csv, else <real_dir>/../descriptions/descriptions.csv).")
MODEL_NAME = flags.DEFINE_string(
    "model_name", _env("MODEL_NAME"), "The model's name (default: the first run folder's "
    "name without its -run_0N suffix). Env: WORLDFOUNDRY_PHYSICS_IQ_VERIFIED_MODEL_NAME.")

_RECORDED = ("real_dir", "generated_dirs", "descriptions_file",
             "model_name") + common_flags.RECORDED


def _config() -> runner.VerifiedConfig:
    common = common_flags.common_config()
    bundled = not (REAL_DIR.value or GENERATED_DIRS.value)
    if bundled:
        tree = inputs.synthetic_tree()
        summary.announce("No --real_dir / --generated_dirs given: evaluating a synthetic "
                         f"tree made on the fly at {tree.root} (3 scenarios of our own; its "
                         f"folders {', '.join(BUNDLED_RUNS)} as two runs); not Physics-IQ "
                         "data.")
        real, descriptions = tree.benchmark, tree.descriptions
        runs = tuple(tree.generated[name] for name in BUNDLED_RUNS)
        model = "synthetic"
    else:
        if not (REAL_DIR.value and GENERATED_DIRS.value):
            raise errors.InputError("--real_dir / --generated_dirs", "both",
                                    "only one given")
        real = paths.user_path(REAL_DIR.value)
        runs = tuple(paths.user_path(d) for d in GENERATED_DIRS.value)
        descriptions = inputs.descriptions_file(DESCRIPTIONS.value, real)
        model = runs[0].name.rsplit("-run_", 1)[0]
    model = MODEL_NAME.value or model
    output = paths.user_path(common.output_dir
                             or f"worldeval_outputs/physics-iq-verified/{model}")
    return runner.VerifiedConfig(
        common=common, real_dir=real, generated_dirs=runs, descriptions=descriptions,
        output_dir=output, model_name=model, bundled_sample=bundled,
        recorded_flags=common_flags.flag_values_for_record(_RECORDED))


def main(argv):
    app_main.run_benchmark(argv, _config, runner.run, noun="views")


if __name__ == "__main__":
    app_main.run(main)
