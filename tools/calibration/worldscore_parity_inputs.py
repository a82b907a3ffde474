"""Writes what official_runs/worldscore_gram.py and torchmetrics_clip_score.py read
(gram_parity.write_inputs, clip_score_parity.write_inputs).

    bazel run //tools/calibration:worldscore_parity_inputs -- --output_dir=/tmp/gram_in
"""

import pathlib

from absl import app
from absl import flags

from tools.calibration import clip_score_parity
from tools.calibration import gram_parity

_OUTPUT_DIR = flags.DEFINE_string("output_dir", None, "Folder to write into (absolute).")


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {argv[1:]}")
    out = pathlib.Path(_OUTPUT_DIR.value)
    print(gram_parity.write_inputs(out), clip_score_parity.write_inputs(out))


if __name__ == "__main__":
    flags.mark_flag_as_required("output_dir")
    app.run(main)
