"""Writes what official_runs/videomae.py reads: the tiny checkpoint in the official
layout and the RGB clips of the VideoMAE parity check.

    bazel run //tools/calibration:videomae_official_inputs -- --output_dir=/tmp/parity_in
"""

import pathlib

from absl import app
from absl import flags

from tools.calibration import videomae_parity

_OUTPUT_DIR = flags.DEFINE_string("output_dir", None, "Folder to write into (absolute).")


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {argv[1:]}")
    checkpoint = videomae_parity.write_inputs(pathlib.Path(_OUTPUT_DIR.value))
    print(f"videomae: {checkpoint} + {videomae_parity.CLIPS}")


if __name__ == "__main__":
    flags.mark_flag_as_required("output_dir")
    app.run(main)
