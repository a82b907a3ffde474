"""Imports official WorldScore results into a scorecard.

    bazel run //benchmarks/worldscore:import -- --generated_root=/path/worldscore_output \\
        --output_dir=/path/out --model_name=wan2.1_i2v [--data_root=/path/to/dataset]
    bazel run //benchmarks/worldscore:import -- --worldscore_json=/path/worldscore.json \\
        --output_dir=/path/out --model_name=wan2.1_i2v

From a tree: worldscore.json recomputed from the instances' evaluation.json files as
`run_evaluate.py --only_calculate_mean True` does (the tree is not modified), with one
row per instance (errors named) and coverage against 2,000 static + 1,000 dynamic
instances (by id with --data_root). From a worldscore.json: model-level values only.
Writes scorecard.json (scope IMPORTED_OFFICIAL_RESULTS) and worldscore.json, plus
per_sample_scores.jsonl and raw_metric_table.jsonl from a tree.
Exit codes: 0 done, 2 unusable input, 1 internal error.
"""

import os

from absl import flags

from benchmarks.common import app_main
from benchmarks.common import errors
from benchmarks.common import paths
from benchmarks.common import summary
from benchmarks.worldscore import aspects
from benchmarks.worldscore import importer

_ENV = "WORLDFOUNDRY_WORLDSCORE_"

GENERATED_ROOT = flags.DEFINE_string(
    "generated_root", None,
    "A model's worldscore_output folder (static/, dynamic/ with the instances' "
    "evaluation.json files). Not with --worldscore_json.")
WORLDSCORE_JSON = flags.DEFINE_string(
    "worldscore_json", None, "A finished official worldscore.json. Not with --generated_root.")
DATA_ROOT = flags.DEFINE_string(
    "data_root", os.environ.get(_ENV + "DATA_PATH"),
    "The folder holding WorldScore-Dataset/ (the Howieeeee/WorldScore dataset): coverage "
    "by instance id and the dataset-vs-tree cross check. Env: WORLDFOUNDRY_WORLDSCORE_DATA_PATH.")
MODEL_NAME = flags.DEFINE_string(
    "model_name", os.environ.get(_ENV + "MODEL_NAME"),
    "The model's name, as in the official config/model_configs/<name>.yaml (a 3D model's "
    "name makes the import static only). Default: the parent folder's name. "
    "Env: WORLDFOUNDRY_WORLDSCORE_MODEL_NAME.")
STATIC_ONLY = flags.DEFINE_boolean(
    "static_only", None,
    "Evaluate static only, as the official run_evaluate does for 3D models (dynamic "
    "aspects 0). Default: whether --model_name is one of " + ", ".join(aspects.THREED_MODELS))
OUTPUT_DIR = flags.DEFINE_string(
    "output_dir", None, "Where to write; default worldeval_outputs/worldscore/<model>/imported.")


def main(argv):
    if len(argv) > 1:
        raise errors.InputError(" ".join(argv[1:]), "flags only (--name=value)", "extra arguments")
    tree = paths.user_path(GENERATED_ROOT.value) if GENERATED_ROOT.value else None
    given = paths.user_path(WORLDSCORE_JSON.value) if WORLDSCORE_JSON.value else None
    if (tree is None) == (given is None):
        raise errors.InputError("--generated_root / --worldscore_json", "exactly one of them",
                                "both" if tree else "neither")
    data_root = paths.user_path(DATA_ROOT.value) if DATA_ROOT.value else None
    model = MODEL_NAME.value or (tree or given).parent.name
    static_only = (model in aspects.THREED_MODELS if STATIC_ONLY.value is None
                   else STATIC_ONLY.value)
    if tree is not None:
        imported = importer.from_tree(tree, model, static_only, data_root)
    else:
        imported = importer.from_worldscore_json(given, model, static_only)
    out_dir = paths.user_path(OUTPUT_DIR.value or f"worldeval_outputs/worldscore/{model}/imported")
    card = importer.write_outputs(out_dir, imported, {
        "generated_root": tree, "worldscore_json": given, "data_root": data_root})
    print(summary.render(card))


if __name__ == "__main__":
    app_main.run(main)
