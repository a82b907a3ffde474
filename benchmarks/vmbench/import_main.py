"""Imports official VMBench outputs (results.json and/or scores.csv) into a scorecard.

    bazel run //benchmarks/vmbench:import -- --results_json=/path/results.json \\
        --output_dir=/path/out --model_name=MyModel

Writes scorecard.json (scope IMPORTED_OFFICIAL_RESULTS), per_sample_scores.jsonl,
raw_metric_table.jsonl and scores.csv (byte-identical to calculate_score.py's from the
same results.json). With --scores_csv alone: model-level values only.
Exit codes: 0 done, 2 unusable input, 1 internal error.
"""

import os

from absl import flags

from benchmarks.common import app_main
from benchmarks.common import errors
from benchmarks.common import paths
from benchmarks.common import summary
from benchmarks.vmbench import importer
from benchmarks.vmbench import prompt_suite

_ENV = "WORLDFOUNDRY_VMBENCH_"

RESULTS_JSON = flags.DEFINE_string(
    "results_json", os.environ.get(_ENV + "RESULTS_PATH"),
    "An official results.json (evaluate.sh's eval_results/<time>/results.json). "
    "Env: WORLDFOUNDRY_VMBENCH_RESULTS_PATH.")
SCORES_CSV = flags.DEFINE_string(
    "scores_csv", os.environ.get(_ENV + "SCORES_CSV"),
    "An official scores.csv (bench_utils/calculate_score.py). Alone: model-level values "
    "only; with --results_json: checked against it. Env: WORLDFOUNDRY_VMBENCH_SCORES_CSV.")
PROMPT_MANIFEST = flags.DEFINE_string(
    "prompt_manifest", os.environ.get(_ENV + "PROMPT_MANIFEST"),
    "VMBench's prompts.json, for coverage (default: the indices 0001..1050). "
    "Env: WORLDFOUNDRY_VMBENCH_PROMPT_MANIFEST.")
MODEL_NAME = flags.DEFINE_string(
    "model_name", os.environ.get(_ENV + "MODEL_NAME"),
    "The model's name in the scorecard (default: the input file's folder name). "
    "Env: WORLDFOUNDRY_VMBENCH_MODEL_NAME.")
OUTPUT_DIR = flags.DEFINE_string(
    "output_dir", None, "Where to write; default worldeval_outputs/vmbench/<model>/imported.")


def _opt(value):
    return paths.user_path(value) if value else None


def main(argv):
    if len(argv) > 1:
        raise errors.InputError(" ".join(argv[1:]), "flags only (--name=value)", "extra arguments")
    results, scores = _opt(RESULTS_JSON.value), _opt(SCORES_CSV.value)
    manifest = _opt(PROMPT_MANIFEST.value)
    suite = prompt_suite.load_manifest(manifest) if manifest else None
    given = results or scores
    model = MODEL_NAME.value or (given.parent.name if given else "model")
    imported = importer.build(model, results, scores, suite)
    out_dir = paths.user_path(OUTPUT_DIR.value or f"worldeval_outputs/vmbench/{model}/imported")
    card = importer.write_outputs(out_dir, imported, {
        "results_json": results, "scores_csv": scores, "prompt_manifest": manifest})
    print(summary.render(card))


if __name__ == "__main__":
    app_main.run(main)
