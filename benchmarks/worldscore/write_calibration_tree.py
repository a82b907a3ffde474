"""Writes the calibration trees (calibration_tree.py) for an official run.

    bazel run //benchmarks/worldscore:write_calibration_tree -- --output_dir=/tmp/ws_tree

Leaves <output_dir>/<model>/worldscore_output for a video and a 3D model, and
<output_dir>/data/WorldScore-Dataset (calibration/official_run.py's input).
"""

from absl import app
from absl import flags

from benchmarks.common import paths
from benchmarks.worldscore import calibration_tree

OUTPUT_DIR = flags.DEFINE_string("output_dir", None, "An empty or new folder to write into.")


def main(argv):
    del argv
    out = paths.user_path(OUTPUT_DIR.value)
    if out.exists() and any(out.iterdir()):
        raise app.UsageError(f"{out} is not empty")
    print(calibration_tree.write_all(out))


if __name__ == "__main__":
    flags.mark_flag_as_required("output_dir")
    app.run(main)
