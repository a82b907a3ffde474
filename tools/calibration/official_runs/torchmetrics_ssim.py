"""torchmetrics' default SSIM on fixed frame pairs, for benchmarks/worldscore's
motion_smoothness_test; runs OUTSIDE the repository. Produced 2026-12-01 with:

    python3.11 -m venv /tmp/vfimamba-venv   # + base.pth -> the locked wheels' site folders
    /tmp/vfimamba-venv/bin/pip install --no-deps torchmetrics==1.9.0 lightning-utilities
    /tmp/vfimamba-venv/bin/python tools/calibration/official_runs/torchmetrics_ssim.py \\
        benchmarks/worldscore/testdata/motion_smoothness_pairs.npz \\
        benchmarks/worldscore/testdata/motion_smoothness_torchmetrics.json

The pairs file (uint8 (24, 20, 3) arrays `<case>_0` (the interpolated frame) and
`<case>_1` (the real one), from numpy's default_rng(7)) is the committed input. Per case,
as WorldScore's StructuralSimilarityIndexMeasureMetric scores a pair: a
StructuralSimilarityIndexMeasure() with every default, called on torchvision ToTensor of
each array with a batch axis; and, for contrast, the same with data_range=1.0.
"""

import json
import sys

import numpy as np
from torchmetrics.image import StructuralSimilarityIndexMeasure
from torchvision.transforms import ToTensor


def main(pairs_path, out_path):
    pairs = np.load(pairs_path)
    cases = sorted({name.rsplit("_", 1)[0] for name in pairs.files})
    out = {}
    for case in cases:
        a = ToTensor()(pairs[case + "_0"]).unsqueeze(0)
        b = ToTensor()(pairs[case + "_1"]).unsqueeze(0)
        out[case] = {"ssim": StructuralSimilarityIndexMeasure()(a, b).item(),
                     "ssim_data_range_1": StructuralSimilarityIndexMeasure(data_range=1.0)(a, b).item()}
    with open(out_path, "w", encoding="utf-8") as fh:
        json.dump(out, fh, indent=1)
        fh.write("\n")
    print(out)


if __name__ == "__main__":
    main(*sys.argv[1:3])
