"""Writes what official_runs/sea_raft.py reads: the SEA-RAFT parity check's inputs.

    bazel run //tools/calibration:sea_raft_inputs -- --output_dir=/tmp/sea_raft_in

Layout (relative paths the official constructors read from their working directory):
worldscore/benchmark/metrics/checkpoints/Tartan-C-T-TSKH-spring540x960-M.pth (the TINY
seeded checkpoint, official file format, under the official name),
worldscore/benchmark/metrics/third_party/SEA-RAFT/config/eval/spring-M.json (the tiny
config in the official JSON fields), clips/<c>/frames/<t>.png, clips/<c>/masks/object_<k>.png
(frame-0 object masks) and clips/<c>/tracked_masks.npy ((T, K, H, W) bool: what the
stand-in tracker returns).
"""

import pathlib

from absl import app
from absl import flags

from tools.calibration import sea_raft_parity

_OUTPUT_DIR = flags.DEFINE_string("output_dir", None, "Folder to write into (absolute).")


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {argv[1:]}")
    out = pathlib.Path(_OUTPUT_DIR.value)
    out.mkdir(parents=True, exist_ok=True)
    print(f"sea-raft: {sea_raft_parity.write_inputs(out)} + config json, clips/")


if __name__ == "__main__":
    flags.mark_flag_as_required("output_dir")
    app.run(main)
