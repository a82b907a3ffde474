"""Writes what official_runs/sam2.py reads (sam2_parity.write_inputs).

    bazel run //tools/calibration:sam2_inputs -- --output_dir=/tmp/sam2_in
"""

from absl import app
from absl import flags

from tools.calibration import sam2_parity

_OUTPUT_DIR = flags.DEFINE_string("output_dir", None, "Folder to write into (absolute).")


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {argv[1:]}")
    print(f"sam2: {sam2_parity.write_inputs(_OUTPUT_DIR.value)}")


if __name__ == "__main__":
    flags.mark_flag_as_required("output_dir")
    app.run(main)
