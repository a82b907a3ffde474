"""Runs the official EvaluateErrBetweenTwoImage on our synthetic parallax frames, repeatedly,
and writes what it returns beside our seeded values: calibration/consistency_3d_official.csv.

Nothing official is committed: the script imports the official module from a scratch
copy. How the committed table was produced (2026-12-01):

    python3.11 -m venv /tmp/miraA-venv    # + base.pth listing the locked wheels' site folders
                                          # (opencv-python 4.14.0.94, numpy 2.4.1)
    mkdir -p /tmp/miraA/official
    git --git-dir=<mirror of mira-space/Miradata> show f7e72ff:evaluation/consistency_3D.py \\
        > /tmp/miraA/official/consistency_3D.py
    cd /work/wt-miraA && /tmp/miraA-venv/bin/python \\
        tools/calibration/official_runs/mirabench_consistency_3d.py /tmp/miraA/official \\
        benchmarks/mirabench/calibration/consistency_3d_official.csv

Frames: tools/fixtures/mirabench_clips.parallax_clip(frames=61, seed=0) at 256x144,
written as PNG (what the official reads after ffmpeg extraction); pairs (0, 10), (0, 30),
(10, 60). Each pair: the official function called REPEATS times in one process (its
FLANN/RANSAC random state carries on from call to call, as in an official run), and ours
(consistency_3d.pair_values) with seeds 0..REPEATS-1.
"""

import csv
import pathlib
import sys
import tempfile

import cv2

ROOT = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from benchmarks.mirabench import consistency_3d  # noqa: E402  pylint: disable=wrong-import-position
from tools.fixtures import mirabench_clips  # noqa: E402  pylint: disable=wrong-import-position

REPEATS = 8
PAIRS = ((0, 10), (0, 30), (10, 60))
FIELDS = ("pair", "implementation", "call", "num_pts", "num_inliers_F", "keep_ratio",
          "mean_err", "rmse")


def main(official_dir: str, out_csv: str) -> None:
    sys.path.insert(0, official_dir)
    import consistency_3D as official  # pylint: disable=import-outside-toplevel,import-error
    frames = mirabench_clips.parallax_clip(61, 0)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, j in PAIRS:
            left, right = f"{tmp}/frames_{i + 1}.png", f"{tmp}/frames_{j + 1}.png"
            cv2.imwrite(left, frames[i])
            cv2.imwrite(right, frames[j])
            for call in range(REPEATS):
                mean_error, _, rmse, _, keep, inliers, num = official.EvaluateErrBetweenTwoImage(
                    left, right, 3)
                rows.append((f"{i}-{j}", "official", call, num, int(inliers), keep,
                             mean_error, rmse))
            for seed in range(REPEATS):
                ours = consistency_3d.pair_values(cv2.imread(left), cv2.imread(right), seed)
                rows.append((f"{i}-{j}", "ours_seeded", seed,
                             *[ours[c] for c in consistency_3d.COLUMNS]))
    with open(out_csv, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(FIELDS)
        for row in rows:
            writer.writerow([f"{v:.6g}" if isinstance(v, float) else v for v in row])


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
