"""Writes what official_runs/depth_anything.py reads: the parity check's checkpoint and frames.

    bazel run //tools/calibration:depth_anything_inputs -- --output_dir=/tmp/da_in
"""

import pathlib

from absl import app
from absl import flags
import numpy as np

from tools.calibration import depth_anything_parity
from tools.calibration import frames as frames_lib

_OUTPUT_DIR = flags.DEFINE_string("output_dir", None, "Folder to write into (absolute).")


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {argv[1:]}")
    out = pathlib.Path(_OUTPUT_DIR.value)
    out.mkdir(parents=True, exist_ok=True)
    snapshot = depth_anything_parity.write_checkpoint(out)
    np.save(out / "frames.npy", np.array(frames_lib.all_frames(), dtype=object),
            allow_pickle=True)
    print(f"checkpoint: {snapshot}\nframes: {out / 'frames.npy'}")


if __name__ == "__main__":
    flags.mark_flag_as_required("output_dir")
    app.run(main)
