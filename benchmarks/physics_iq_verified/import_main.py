"""Imports a Physics-IQ Verified submission card into a scorecard.

    bazel run //benchmarks/physics_iq_verified:import -- \\
        --submission_yaml=/path/submission.yaml [--model_name=M] --output_dir=/path/out

The card (PR #69's submission/submission.yaml, every check of physiq/submit.py) gives the
submitter's reported_scores: scorecard.json for "physics-iq-verified" with them as
written, self-reported and not recomputed (there is no per-view file to recompute from),
and the card copied as submission/submission.yaml (importer.py). Exit codes: 0 done, 2
unusable input, 1 internal error.
"""

import os
import pathlib

from absl import flags

from benchmarks.common import app_main
from benchmarks.common import errors
from benchmarks.common import paths
from benchmarks.common import summary
from benchmarks.physics_iq_verified import importer

_ENV = "WORLDFOUNDRY_PHYSICS_IQ_VERIFIED_"

SUBMISSION_YAML = flags.DEFINE_string(
    "submission_yaml", os.environ.get(_ENV + "SUBMISSION_YAML"),
    "A Physics-IQ Verified submission card (submission/submission.yaml of PR #69). "
    "Env: WORLDFOUNDRY_PHYSICS_IQ_VERIFIED_SUBMISSION_YAML.")
MODEL_NAME = flags.DEFINE_string(
    "model_name", os.environ.get(_ENV + "MODEL_NAME"),
    "The model's name (default: the card's public_info.model). "
    "Env: WORLDFOUNDRY_PHYSICS_IQ_VERIFIED_MODEL_NAME.")
OUTPUT_DIR = flags.DEFINE_string(
    "output_dir", None, "Where to write; default "
    "worldeval_outputs/physics-iq-verified/<model>/imported.")


def main(argv):
    if len(argv) > 1:
        raise errors.InputError(" ".join(argv[1:]), "flags only (--name=value)", "extra arguments")
    if not SUBMISSION_YAML.value:
        raise errors.InputError("--submission_yaml", "a Physics-IQ Verified submission card",
                                "none given")
    source = paths.user_path(SUBMISSION_YAML.value)
    imported = importer.import_submission(source, MODEL_NAME.value)
    out_dir = pathlib.Path(paths.user_path(
        OUTPUT_DIR.value or f"worldeval_outputs/{imported.card.benchmark_id}/"
        f"{imported.card.model_name}/imported"))
    card = importer.write_outputs(out_dir, imported, {"submission_yaml": source})
    print(summary.render(card))


if __name__ == "__main__":
    app_main.run(main)
