"""Regenerates the parity table from every parity check.

    bazel run //tools/calibration:write_parity_table -- \
        --output=$PWD/tools/calibration/parity.csv

Runs each backend's comparison (the same functions its `*_parity_test` runs) and writes
the rows; commit the result with the change that moved them.
"""

import pathlib

from absl import app
from absl import flags

from tools.calibration import clip_parity
from tools.calibration import clip_score_parity
from tools.calibration import clipiqa_parity
from tools.calibration import cotracker2_parity
from tools.calibration import cotracker3_parity
from tools.calibration import depth_anything_parity
from tools.calibration import dinov2_parity
from tools.calibration import gram_parity
from tools.calibration import grounding_dino_parity
from tools.calibration import imagereward_parity
from tools.calibration import lpips_parity
from tools.calibration import mapanything_parity
from tools.calibration import ois_parity
from tools.calibration import parity_table
from tools.calibration import qalign_parity
from tools.calibration import raft_parity
from tools.calibration import sam2_motion_parity
from tools.calibration import sam2_parity
from tools.calibration import sam3_parity
from tools.calibration import sam_v1_parity
from tools.calibration import sea_raft_parity
from tools.calibration import vbench_clip_parity
from tools.calibration import vbench_dino_parity
from tools.calibration import vbench_motion_parity
from tools.calibration import vbench_musiq_parity
from tools.calibration import vbench_tag2text_parity
from tools.calibration import vbench_umt_parity
from tools.calibration import videomae_parity
from tools.calibration import vfimamba_parity
from tools.calibration import viclip_parity

_OUTPUT = flags.DEFINE_string("output", None, "Where to write the CSV (absolute path; "
                              "bazel run starts in the runfiles tree).")

# Every parity check; a backend without an entry here has no calibration row.
RUNS = (lpips_parity.run, clip_parity.run_aesthetic, clip_parity.run_b32, raft_parity.run,
        depth_anything_parity.run, clipiqa_parity.run, dinov2_parity.run,
        grounding_dino_parity.run, sam_v1_parity.run, sam2_parity.run, videomae_parity.run,
        cotracker3_parity.run, imagereward_parity.run, sam3_parity.run, qalign_parity.run,
        mapanything_parity.run, sea_raft_parity.run, ois_parity.run, gram_parity.run,
        clip_score_parity.run, vfimamba_parity.run, sam2_motion_parity.run, viclip_parity.run,
        cotracker2_parity.run, vbench_clip_parity.run_b32, vbench_clip_parity.run_aesthetic,
        vbench_dino_parity.run, vbench_motion_parity.run_raft, vbench_motion_parity.run_amt,
        vbench_musiq_parity.run, vbench_umt_parity.run, vbench_tag2text_parity.run)


def all_rows():
    return [row for run in RUNS for row in run()]


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {argv[1:]}")
    rows = all_rows()
    failed = [f"{r.backend} {r.check}: {r.max_rel_diff:.3g} > {r.tolerance:g}"
              for r in rows if not r.passed]
    pathlib.Path(_OUTPUT.value).write_text(parity_table.write(rows), encoding="utf-8")
    print(f"wrote {len(rows)} rows to {_OUTPUT.value}")
    if failed:
        print("FAILED (written anyway, so that the table shows it):\n  " + "\n  ".join(failed))
        raise SystemExit(1)


if __name__ == "__main__":
    flags.mark_flag_as_required("output")
    app.run(main)
