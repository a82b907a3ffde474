"""Imports official MemoBench results (any of Step 1, ORS, VQA, leaderboard.csv) into one scorecard.

    bazel run //benchmarks/memobench:import -- --eval_csv=/path/eval_both.csv \\
        --ors_dir=/path/ors_results --vqa_dir=/path/vqa_results --model_name=MyModel

--eval_dir, --ors_dir and --vqa_dir take a model's own folder, or a per-step root laid out
as leaderboard.py's (--eval-dir/{model}/eval_*.csv, ...), where --model_name picks the
model through leaderboard.py's name map. Writes scorecard.json (scope
IMPORTED_OFFICIAL_RESULTS), per_sample_scores.jsonl and raw_metric_table.jsonl.
Exit codes: 0 done, 2 unusable input, 1 internal error.
"""

import os

from absl import flags

from benchmarks.common import app_main
from benchmarks.common import errors
from benchmarks.common import paths
from benchmarks.common import summary
from benchmarks.memobench import importer
from benchmarks.memobench import leaderboard_files as files_lib

EVAL_CSV = flags.DEFINE_string(
    "eval_csv", os.environ.get("WORLDFOUNDRY_MEMOBENCH_RESULTS_PATH"),
    "An official eval_*.csv from MemoBench's run_eval.py (env "
    "WORLDFOUNDRY_MEMOBENCH_RESULTS_PATH). Not with --eval_dir.")
EVAL_DIR = flags.DEFINE_string(
    "eval_dir", os.environ.get("WORLDFOUNDRY_MEMOBENCH_EVAL_DIR"),
    "A model's folder of eval_*.csv (the newest is read, as leaderboard.py does), or a "
    "folder of such model folders (env WORLDFOUNDRY_MEMOBENCH_EVAL_DIR).")
ORS_DIR = flags.DEFINE_string(
    "ors_dir", os.environ.get("WORLDFOUNDRY_MEMOBENCH_ORS_DIR"),
    "A model's folder holding compute_ors.py's ors_scores.csv, or a folder of such model "
    "folders (env WORLDFOUNDRY_MEMOBENCH_ORS_DIR).")
VQA_DIR = flags.DEFINE_string(
    "vqa_dir", os.environ.get("WORLDFOUNDRY_MEMOBENCH_VQA_DIR"),
    "A model's folder of llm-vqa.py per-clip CSVs, or a folder of such model folders "
    "(env WORLDFOUNDRY_MEMOBENCH_VQA_DIR).")
LEADERBOARD_CSV = flags.DEFINE_string(
    "leaderboard_csv", os.environ.get("WORLDFOUNDRY_MEMOBENCH_LEADERBOARD_PATH"),
    "A leaderboard.csv written by leaderboard.py: model-level values for the metrics the "
    "other sources lack (env WORLDFOUNDRY_MEMOBENCH_LEADERBOARD_PATH).")
MODEL_NAME = flags.DEFINE_string(
    "model_name", os.environ.get("WORLDFOUNDRY_MEMOBENCH_MODEL_NAME"),
    "The model's name (env WORLDFOUNDRY_MEMOBENCH_MODEL_NAME); also picks the model in "
    "per-step roots and leaderboard.csv. Default: the model folder's name.")
OUTPUT_DIR = flags.DEFINE_string(
    "output_dir", None, "Where to write; default worldeval_outputs/memobench/<model>/imported.")


def collect(model_name):
    """(ModelResults, model name, leaderboard row or None, inputs) from the flags."""
    if EVAL_CSV.value and EVAL_DIR.value:
        raise errors.InputError("--eval_csv / --eval_dir", "one of them (check the env vars "
                                "WORLDFOUNDRY_MEMOBENCH_RESULTS_PATH / _EVAL_DIR)", "both")
    sources = {"eval": EVAL_DIR.value, "ors": ORS_DIR.value, "vqa": VQA_DIR.value}
    if not (EVAL_CSV.value or LEADERBOARD_CSV.value or any(sources.values())):
        raise errors.InputError("--eval_csv/--eval_dir/--ors_dir/--vqa_dir/--leaderboard_csv",
                                "at least one source of official results", "none given")
    found, names, inputs = {}, [], {}
    if EVAL_CSV.value:
        path = paths.user_path(EVAL_CSV.value)
        found["eval"] = files_lib.require_rows(files_lib.read_eval_csv(path), "--eval_csv")
        inputs["eval_csv"] = path
        names.append(path.parent.name)
    for kind, value in sources.items():
        if value:
            path = paths.user_path(value)
            found[kind], name = files_lib.find_model(kind, path, model_name, f"--{kind}_dir")
            files_lib.require_rows(found[kind], f"--{kind}_dir")  # a header-only file
            inputs[f"{kind}_dir"] = path
            names.append(name)
    csv = None
    if LEADERBOARD_CSV.value:
        path = paths.user_path(LEADERBOARD_CSV.value)
        try:
            csv = importer.leaderboard_row(path, model_name or (names[0] if names else None))
        except errors.InputError:
            if model_name or not names:
                raise
            csv = importer.leaderboard_row(path, None)  # a file of one model
        inputs["leaderboard_csv"] = path
        names.append(csv.model)
    model = model_name or names[0]
    return files_lib.ModelResults(files_lib.canonical_key(model), **found), model, csv, inputs


def main(argv):
    if len(argv) > 1:
        raise errors.InputError(" ".join(argv[1:]), "flags only (--name=value)", "extra arguments")
    results, model, csv, inputs = collect(MODEL_NAME.value)
    card, samples = importer.build(results, model, csv)
    out_dir = paths.user_path(OUTPUT_DIR.value or f"worldeval_outputs/memobench/{model}/imported")
    importer.write_outputs(out_dir, card, samples, inputs)
    print(summary.render(card))


if __name__ == "__main__":
    app_main.run(main)
