"""Imports official MiraBench results into a scorecard.

    bazel run //benchmarks/mirabench:import -- --average_score=/path/average_score.csv \\
        [--video_score=/path/video_score.csv] --output_dir=/path/out --model_name=M

average_score.csv is the official JSON of metric means; video_score.csv, when given,
adds one row per video. Writes scorecard.json (scope IMPORTED_OFFICIAL_RESULTS), plus
per_sample_scores.jsonl and raw_metric_table.jsonl from video_score.csv.
Exit codes: 0 done, 2 unusable input, 1 internal error.
"""

import os

from absl import flags

from benchmarks.common import app_main
from benchmarks.common import errors
from benchmarks.common import paths
from benchmarks.common import summary
from benchmarks.mirabench import importer

_ENV = "WORLDFOUNDRY_MIRABENCH_"

AVERAGE_SCORE = flags.DEFINE_string(
    "average_score", None, "The official average_score.csv (JSON despite the name).")
VIDEO_SCORE = flags.DEFINE_string(
    "video_score", None, "The official video_score.csv (optional: per-video rows).")
MODEL_NAME = flags.DEFINE_string(
    "model_name", os.environ.get(_ENV + "MODEL_NAME"),
    "The model's name (default: the folder of --average_score). "
    "Env: WORLDFOUNDRY_MIRABENCH_MODEL_NAME.")
OUTPUT_DIR = flags.DEFINE_string(
    "output_dir", None, "Where to write; default worldeval_outputs/mirabench/<model>/imported.")


def main(argv):
    if len(argv) > 1:
        raise errors.InputError(" ".join(argv[1:]), "flags only (--name=value)", "extra arguments")
    if not AVERAGE_SCORE.value:
        raise errors.InputError("--average_score", "the official average_score.csv",
                                "none given")
    average = paths.user_path(AVERAGE_SCORE.value)
    video = paths.user_path(VIDEO_SCORE.value) if VIDEO_SCORE.value else None
    model = MODEL_NAME.value or average.parent.name
    imported = importer.import_files(average, video, model)
    out_dir = paths.user_path(OUTPUT_DIR.value or f"worldeval_outputs/mirabench/{model}/imported")
    card = importer.write_outputs(out_dir, imported,
                                  {"average_score": average, "video_score": video})
    print(summary.render(card))


if __name__ == "__main__":
    app_main.run(main)
