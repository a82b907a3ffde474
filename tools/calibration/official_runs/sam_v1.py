"""The official side of the SAM v1 parity check; runs OUTSIDE the repository.

VMBench's PAS imports `segment_anything` from its vendored
Grounded-Segment-Anything/segment_anything (AMAP-ML/VMBench c278a73), which is the
segment-anything 1.0 code plus HQ-SAM additions (the image encoder also returns
intermediate embeddings, the predictor takes `hq_token_only`); this script runs that
copy on the tiny SAM and boxes `//tools/calibration:official_run_inputs` writes. How
sam_v1_official.csv was produced (2026-12-01), with the virtualenv and source tree of
official_runs/grounding_dino.py:

    bazel run //tools/calibration:official_run_inputs -- --output_dir=/tmp/parity_in
    /tmp/gdsam-venv/bin/python tools/calibration/official_runs/sam_v1.py \\
        /tmp/gdsam_src/Grounded-Segment-Anything/segment_anything /tmp/parity_in \\
        tools/calibration/sam_v1_official.csv

The call sequence is perceptible_amplitude_score.py's: `SamPredictor(_build_sam(...)
with the checkpoint)` (the vit_h builder's code with the tiny encoder sizes of
sam_v1_inputs.json), `set_image(frame_rgb)`, `transform.apply_boxes_torch(boxes,
original_size)` for the official (3, H') and the corrected (H, W), `predict_torch(
point_coords=None, point_labels=None, boxes=..., multimask_output=False)`, and the same
call with `return_logits=True` for the mask logits.
"""

import csv
import json
import pathlib
import sys

import cv2
import numpy as np
import torch


def main(src, inputs, out_path):
    sys.path.insert(0, str(src))
    # pylint: disable=import-outside-toplevel  (the vendored copy is on sys.path only here)
    from segment_anything import SamPredictor
    from segment_anything.build_sam import _build_sam
    inputs = pathlib.Path(inputs)
    spec = json.loads((inputs / "sam_v1_inputs.json").read_text(encoding="utf-8"))
    predictor = SamPredictor(_build_sam(checkpoint=str(inputs / spec["checkpoint"]),
                                        **spec["tiny_config"]))
    frames = np.load(inputs / "frames.npy", allow_pickle=True)
    rng = np.random.default_rng(1234)
    rows = []

    def stats(i, name, t):
        flat = t.astype(np.float64).ravel()
        shape = "x".join(map(str, t.shape))
        rows.append((i, name, shape, "sum", repr(float(flat.sum()))))
        rows.append((i, name, shape, "sumsq", repr(float((flat ** 2).sum()))))
        for k in sorted(rng.choice(flat.size, 32, replace=False)):
            rows.append((i, name, shape, f"at:{k}", repr(float(flat[k]))))

    for entry in spec["frames"]:
        i = entry["frame"]
        rgb = cv2.cvtColor(frames[i], cv2.COLOR_BGR2RGB)
        predictor.set_image(rgb)
        image = torch.as_tensor(predictor.transform.apply_image(rgb)).permute(2, 0, 1)
        stats(i, "input_image", predictor.model.preprocess(image[None].float())[0].numpy())
        stats(i, "image_embedding", predictor.features[0].numpy())
        for mode, size in entry["original_sizes"].items():
            boxes = predictor.transform.apply_boxes_torch(
                torch.tensor(entry["boxes"], dtype=torch.float32), tuple(size))
            for k, v in enumerate(boxes.numpy().astype(np.float64).ravel()):
                rows.append((i, f"{mode}:boxes", "x".join(map(str, boxes.shape)), f"at:{k}",
                             repr(float(v))))
            with torch.no_grad():
                masks, _, _ = predictor.predict_torch(point_coords=None, point_labels=None,
                                                      boxes=boxes, multimask_output=False)
                logits, _, _ = predictor.predict_torch(point_coords=None, point_labels=None,
                                                       boxes=boxes, multimask_output=False,
                                                       return_logits=True)
            stats(i, f"{mode}:mask_logits", logits[:, 0].numpy())
            stats(i, f"{mode}:masks", masks[:, 0].numpy())
            print(f"frame {i} {mode} {tuple(size)}: mask areas "
                  f"{masks[:, 0].sum(dim=(1, 2)).tolist()}")
    with open(out_path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(("frame", "tensor", "shape", "stat", "value"))
        writer.writerows(rows)
    print(f"{len(rows)} rows, torch {torch.__version__}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
