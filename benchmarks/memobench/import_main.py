"""Imports an official MemoBench Step 1 eval CSV into worldeval's files.

    bazel run //benchmarks/memobench:import -- --eval_csv=/path/eval_both.csv \\
        --model_name=MyModel --output_dir=/path/out

Writes scorecard.json (scope IMPORTED_OFFICIAL_RESULTS), per_sample_scores.jsonl and
raw_metric_table.jsonl. Exit codes: 0 done, 2 unusable input, 1 internal error.
"""

import os

from absl import flags

from benchmarks.common import app_main
from benchmarks.common import errors
from benchmarks.common import outputs as outputs_lib
from benchmarks.common import paths
from benchmarks.common import provenance
from benchmarks.common import summary
from benchmarks.memobench import importer
from proto import schema

EVAL_CSV = flags.DEFINE_string(
    "eval_csv", os.environ.get("WORLDFOUNDRY_MEMOBENCH_RESULTS_PATH"),
    "An official eval_*.csv from MemoBench's run_eval.py (env "
    "WORLDFOUNDRY_MEMOBENCH_RESULTS_PATH).")
MODEL_NAME = flags.DEFINE_string(
    "model_name", os.environ.get("WORLDFOUNDRY_MEMOBENCH_MODEL_NAME"),
    "The model's name (env WORLDFOUNDRY_MEMOBENCH_MODEL_NAME).")
OUTPUT_DIR = flags.DEFINE_string(
    "output_dir", None, "Where to write; default worldeval_outputs/memobench/<model>/imported.")


def main(argv):
    if len(argv) > 1:
        raise errors.InputError(" ".join(argv[1:]), "flags only (--name=value)", "extra arguments")
    if not EVAL_CSV.value:
        raise errors.InputError("--eval_csv", "the path of an official eval_*.csv", "none given")
    path = paths.user_path(EVAL_CSV.value)
    model = MODEL_NAME.value or path.parent.name
    out = outputs_lib.RunOutputs(paths.user_path(
        OUTPUT_DIR.value or f"worldeval_outputs/memobench/{model}/imported"))
    card, samples = importer.build_scorecard(path, model)
    card.provenance.CopyFrom(provenance.capture({"eval_csv": path}))
    with open(out.path(outputs_lib.PER_SAMPLE), "w", encoding="utf-8") as f:
        f.writelines(schema.to_json_line(s) for s in samples)
    files = {"per_sample_scores": out.path(outputs_lib.PER_SAMPLE),
             "raw_metric_table": out.write_raw_table(samples, [m.id for m in card.metrics]),
             "scorecard": out.path(outputs_lib.SCORECARD)}
    card.output_files.update({k: str(v) for k, v in files.items()})
    out.write_scorecard(card)
    print(summary.format_summary(card))


if __name__ == "__main__":
    app_main.run(main)
