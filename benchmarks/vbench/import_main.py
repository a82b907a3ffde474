"""Imports official VBench results into a scorecard.

    bazel run //benchmarks/vbench:import -- --eval_results=/path/M_eval_results.json \\
        --model_name=M --output_dir=/path/out

--eval_results: one `{name}_eval_results.json`, a folder of them, or the zip
scripts/cal_final_score.py reads (--zip_file). Writes scorecard.json (scope
IMPORTED_OFFICIAL_RESULTS: each dimension's aggregate, cal_final_score.py's quality,
semantic and total, and ours where all their dimensions are present), plus
per_sample_scores.jsonl and raw_metric_table.jsonl from the per-video lists.
Exit codes: 0 done, 2 unusable input, 1 internal error.
"""

import os
import pathlib

from absl import flags

from benchmarks.common import app_main
from benchmarks.common import errors
from benchmarks.common import paths
from benchmarks.common import summary
from benchmarks.vbench import metric_specs
from benchmarks.vbench.results import importer

_ENV = "WORLDFOUNDRY_VBENCH_"
_SUFFIX = metric_specs.EVAL_RESULTS_JSON.format(name="")

EVAL_RESULTS = flags.DEFINE_string(
    "eval_results", os.environ.get(_ENV + "EVAL_RESULTS"),
    "An official {name}_eval_results.json, a folder of them, or their zip (what "
    "cal_final_score.py --zip_file reads). Env: WORLDFOUNDRY_VBENCH_EVAL_RESULTS.")
MODEL_NAME = flags.DEFINE_string(
    "model_name", os.environ.get(_ENV + "MODEL_NAME"),
    "The model's name (default: {name} of {name}_eval_results.json, else the folder or "
    "zip's name). Env: WORLDFOUNDRY_VBENCH_MODEL_NAME.")
OUTPUT_DIR = flags.DEFINE_string(
    "output_dir", None, "Where to write; default worldeval_outputs/vbench/<model>/imported.")


def default_model_name(path: pathlib.Path) -> str:
    """{name} of `{name}_eval_results.json`; else the file, zip or folder name's stem."""
    if path.name.endswith(_SUFFIX) and len(path.name) > len(_SUFFIX):
        return path.name[:-len(_SUFFIX)]
    return path.stem if path.is_file() else path.name


def main(argv):
    if len(argv) > 1:
        raise errors.InputError(" ".join(argv[1:]), "flags only (--name=value)", "extra arguments")
    if not EVAL_RESULTS.value:
        raise errors.InputError("--eval_results", "an official eval_results.json, a folder "
                                "of them, or their zip", "none given")
    source = paths.user_path(EVAL_RESULTS.value)
    model = MODEL_NAME.value or default_model_name(source)
    imported = importer.import_results(source, model)
    out_dir = paths.user_path(OUTPUT_DIR.value or f"worldeval_outputs/vbench/{model}/imported")
    card = importer.write_outputs(out_dir, imported, {"eval_results": source})
    print(summary.render(card))


if __name__ == "__main__":
    app_main.run(main)
