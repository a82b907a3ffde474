"""Physics-IQ runner (original track): scores one model's continuations of the real
physics recordings as the official run_physics_iq.py does; writes the official per-model
CSV (results/<model>.csv, which upstream's plot script reads) and the mask videos beside
the scorecard.

    ./bazelw run //benchmarks/physics_iq:run     # a synthetic tree made on the fly
    ./bazelw run //benchmarks/physics_iq:run -- --real_dir=R --generated_dir=G \\
        [--descriptions_file=CSV] [--model_name=M] [--output_dir=O]

R is the downloaded `physics-IQ-benchmark` folder (split-videos/testing/{F}FPS, and
video-masks/real/{F}FPS where the download has them); G holds the 198 generated 5 s mp4
files named 0001_... to 0198_...; the descriptions file is the repository's
descriptions/descriptions.csv (default: R/descriptions.csv, else
R/../descriptions/descriptions.csv). Every missing or bad file is named; a broken video
fails its view only. Flag defaults: WORLDFOUNDRY_PHYSICS_IQ_<FLAG>. Exit codes: 0 done,
2 unusable input or configuration, 1 internal error.
"""

import os

from absl import flags

from benchmarks.common import app_main
from benchmarks.common import errors
from benchmarks.common import flags as common_flags
from benchmarks.common import paths
from benchmarks.common import summary
from benchmarks.physics_iq import inputs
from benchmarks.physics_iq import runner

_ENV = "WORLDFOUNDRY_PHYSICS_IQ_"
BUNDLED_MODEL = "follows"


def _env(name):
    return os.environ.get(_ENV + name) or None


REAL_DIR = flags.DEFINE_string(
    "real_dir", _env("REAL_DIR"), "The physics-IQ-benchmark data folder (upstream's "
    "./physics-IQ-benchmark). Env: WORLDFOUNDRY_PHYSICS_IQ_REAL_DIR.")
GENERATED_DIR = flags.DEFINE_string(
    "generated_dir", _env("GENERATED_DIR"), "The model's folder of 198 mp4 files, "
    "0001_... to 0198_... Env: WORLDFOUNDRY_PHYSICS_IQ_GENERATED_DIR.")
DESCRIPTIONS = flags.DEFINE_string(
    "descriptions_file", _env("DESCRIPTIONS_FILE"), "descriptions.csv (default: "
    "<real_dir>/descriptions.csv, else <real_dir>/../descriptions/descriptions.csv).")
MODEL_NAME = flags.DEFINE_string(
    "model_name", _env("MODEL_NAME"), "The model's name (default: --generated_dir's folder "
    "name, as upstream names its CSV). Env: WORLDFOUNDRY_PHYSICS_IQ_MODEL_NAME.")

_RECORDED = ("real_dir", "generated_dir", "descriptions_file",
             "model_name") + common_flags.RECORDED


def _config() -> runner.PhysicsIQConfig:
    common = common_flags.common_config()
    bundled = not (REAL_DIR.value or GENERATED_DIR.value)
    if bundled:
        tree = inputs.synthetic_tree()
        summary.announce("No --real_dir / --generated_dir given: evaluating a synthetic "
                         f"tree made on the fly at {tree.root} (3 scenarios of our own, "
                         f"model '{BUNDLED_MODEL}'); not Physics-IQ data.")
        real, generated, descriptions = (tree.benchmark, tree.generated[BUNDLED_MODEL],
                                         tree.descriptions)
    else:
        if not (REAL_DIR.value and GENERATED_DIR.value):
            raise errors.InputError("--real_dir / --generated_dir", "both folders",
                                    "only one given")
        real, generated = paths.user_path(REAL_DIR.value), paths.user_path(GENERATED_DIR.value)
        descriptions = inputs.descriptions_file(DESCRIPTIONS.value, real)
    model = MODEL_NAME.value or generated.name
    output = paths.user_path(common.output_dir or f"worldeval_outputs/physics-iq/{model}")
    return runner.PhysicsIQConfig(
        common=common, real_dir=real, generated_dir=generated, descriptions=descriptions,
        output_dir=output, model_name=model, bundled_sample=bundled,
        recorded_flags=common_flags.flag_values_for_record(_RECORDED))


def main(argv):
    app_main.run_benchmark(argv, _config, runner.run, noun="views")


if __name__ == "__main__":
    app_main.run(main)
