"""Writes what official_runs/mapanything.py reads: the MapAnything parity check's inputs.

    bazel run //tools/calibration:mapanything_inputs -- --output_dir=/tmp/mapany-in

Layout: clip<k>/frames/00000.png ... (the calibration frames of size k, lossless) and
clip<k>/gt_poses.npy ((7, 4, 4) GT cam2world, resampled by each side). The official run
writes the tiny random model's snapshot/ beside them (the lock cannot build it).
"""

import pathlib

from absl import app
from absl import flags

from tools.calibration import mapanything_parity

_OUTPUT_DIR = flags.DEFINE_string("output_dir", None, "Folder to write into (absolute).")


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {argv[1:]}")
    out = pathlib.Path(_OUTPUT_DIR.value)
    out.mkdir(parents=True, exist_ok=True)
    print(f"mapanything: {mapanything_parity.write_inputs(out)}")


if __name__ == "__main__":
    flags.mark_flag_as_required("output_dir")
    app.run(main)
