"""Writes what official_runs/cotracker3.py reads: the CoTracker3 parity check's inputs.

    bazel run //tools/calibration:cotracker3_inputs -- --output_dir=/tmp/cotracker3_in

Layout: scaled_offline.pth (seeded random full-size weights, the official file format:
a plain state dict, ~100 MB), video.npy ((1, T, 3, H, W) float32 RGB 0..255), mask.npy
((1, 1, H, W) uint8 0/255) and call.json (the predictor's keyword arguments).
"""

import pathlib

from absl import app
from absl import flags

from tools.calibration import cotracker3_parity

_OUTPUT_DIR = flags.DEFINE_string("output_dir", None, "Folder to write into (absolute).")


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {argv[1:]}")
    out = pathlib.Path(_OUTPUT_DIR.value)
    out.mkdir(parents=True, exist_ok=True)
    print(f"cotracker3: {cotracker3_parity.write_inputs(out)} + video.npy, mask.npy, call.json")


if __name__ == "__main__":
    flags.mark_flag_as_required("output_dir")
    app.run(main)
