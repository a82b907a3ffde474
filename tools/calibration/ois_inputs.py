"""Writes what official_runs/ois_rtm.py reads: full-size random RTMDet-m (two: persons
found / none) and RTMPose-m checkpoints in the mmengine format, and the frames.

    bazel run //tools/calibration:ois_inputs -- --output_dir=/tmp/ois_in
"""

import pathlib

from absl import app
from absl import flags

from tools.calibration import ois_parity

_OUTPUT_DIR = flags.DEFINE_string("output_dir", None, "Folder to write into (absolute).")


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {argv[1:]}")
    out = pathlib.Path(_OUTPUT_DIR.value)
    out.mkdir(parents=True, exist_ok=True)
    print(f"ois: {ois_parity.write_inputs(out)}: det.pth, det_none.pth, pose.pth, frames.npy")


if __name__ == "__main__":
    flags.mark_flag_as_required("output_dir")
    app.run(main)
