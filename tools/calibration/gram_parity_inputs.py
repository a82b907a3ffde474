"""Writes what official_runs/worldscore_gram.py reads (gram_parity.write_inputs).

    bazel run //tools/calibration:gram_parity_inputs -- --output_dir=/tmp/gram_in
"""

import pathlib

from absl import app
from absl import flags

from tools.calibration import gram_parity

_OUTPUT_DIR = flags.DEFINE_string("output_dir", None, "Folder to write into (absolute).")


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {argv[1:]}")
    print(gram_parity.write_inputs(pathlib.Path(_OUTPUT_DIR.value)))


if __name__ == "__main__":
    flags.mark_flag_as_required("output_dir")
    app.run(main)
