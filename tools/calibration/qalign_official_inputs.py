"""Writes what official_runs/qalign.py reads: the tiny Q-Align snapshot in the official
Hugging Face layout and the RGB clips of the Q-Align parity check.

    bazel run //tools/calibration:qalign_official_inputs -- --output_dir=/tmp/parity_in
"""

import pathlib

from absl import app
from absl import flags

from tools.calibration import qalign_parity

_OUTPUT_DIR = flags.DEFINE_string("output_dir", None, "Folder to write into (absolute).")


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {argv[1:]}")
    snapshot = qalign_parity.write_inputs(pathlib.Path(_OUTPUT_DIR.value))
    print(f"qalign: {snapshot} + {qalign_parity.CLIPS}")


if __name__ == "__main__":
    flags.mark_flag_as_required("output_dir")
    app.run(main)
