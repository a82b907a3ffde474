"""Imports an official Physics-IQ metrics CSV into a scorecard.

    bazel run //benchmarks/physics_iq:import -- --csv=/path/results/M.csv \\
        [--descriptions=/path/descriptions.csv] [--model_name=M] --output_dir=/path/out

--csv: one model's metrics CSV as upstream's run_physics_iq.py writes it
(`{O}/results/{model}.csv`, spec §8): scorecard.json for "physics-iq" (scope
IMPORTED_OFFICIAL_RESULTS) with the Physics-IQ score recomputed from it exactly as
calculate_iq_score.py does, one row per (scenario, view) in per_sample_scores.jsonl and
raw_metric_table.jsonl, and the CSV copied as results/<model>.csv (importer.py). A
Verified submission card: //benchmarks/physics_iq_verified:import.
Exit codes: 0 done, 2 unusable input, 1 internal error.
"""

import os
import pathlib

from absl import flags

from benchmarks.common import app_main
from benchmarks.common import errors
from benchmarks.common import paths
from benchmarks.common import summary
from benchmarks.physics_iq import importer

_ENV = "WORLDFOUNDRY_PHYSICS_IQ_"

CSV = flags.DEFINE_string(
    "csv", os.environ.get(_ENV + "CSV"),
    "One model's official metrics CSV ({O}/results/{model}.csv of run_physics_iq.py). "
    "Env: WORLDFOUNDRY_PHYSICS_IQ_CSV.")
DESCRIPTIONS = flags.DEFINE_string(
    "descriptions", os.environ.get(_ENV + "DESCRIPTIONS"),
    "With --csv, optional: the descriptions.csv the run used, for the sample ids "
    "({id}_{view}_{scenario}) and the views missing from the CSV. "
    "Env: WORLDFOUNDRY_PHYSICS_IQ_DESCRIPTIONS.")
MODEL_NAME = flags.DEFINE_string(
    "model_name", os.environ.get(_ENV + "MODEL_NAME"),
    "The model's name (default: the CSV's stem, as upstream names it after the model's "
    "folder). Env: WORLDFOUNDRY_PHYSICS_IQ_MODEL_NAME.")
OUTPUT_DIR = flags.DEFINE_string(
    "output_dir", None, "Where to write; default worldeval_outputs/<benchmark>/<model>/"
    "imported.")


def default_model_name(csv_path: pathlib.Path) -> str:
    """Upstream's CSV is `{basename(model folder)}.csv`: its stem is the model's name."""
    return csv_path.stem


def _out_dir(benchmark: str, model: str) -> pathlib.Path:
    return paths.user_path(OUTPUT_DIR.value or f"worldeval_outputs/{benchmark}/{model}/imported")


def main(argv):
    if len(argv) > 1:
        raise errors.InputError(" ".join(argv[1:]), "flags only (--name=value)", "extra arguments")
    if not CSV.value:
        raise errors.InputError("--csv", "an official metrics CSV ({O}/results/{model}.csv)",
                                "none given")
    source = paths.user_path(CSV.value)
    descriptions = paths.user_path(DESCRIPTIONS.value) if DESCRIPTIONS.value else None
    model = MODEL_NAME.value or default_model_name(source)
    imported = importer.import_csv(source, model, descriptions)
    card = importer.write_outputs(_out_dir(imported.card.benchmark_id, model), imported,
                                  {"csv": source, "descriptions": descriptions})
    print(summary.render(card))


if __name__ == "__main__":
    app_main.run(main)
