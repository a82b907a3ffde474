"""SAM v1 parity: metrics/segmentation/sam_v1 (the segment-anything 1.0 package behind our
load_sam / masks_from_boxes) against the segment_anything copy VMBench vendors, via
stored numbers.

The vendored Grounded-Segment-Anything/segment_anything (segment-anything plus HQ-SAM
additions) ran outside the repository (official_runs/sam_v1.py, torch 2.14.1, CPU) on
a tiny random SAM in the official state-dict format (metrics/segmentation/tiny_sam_v1 +
noise std 0.02), the first frame of each size of frames.py, and two boxes per frame,
each scaled with the official (3, H') original size (H' the GroundingDINO input
height) and with the corrected (H, W). Compared: preprocess = SAM's input image
tensor and the boxes apply_boxes_torch returns; features = the image embedding and
the mask logits; score = the boolean masks masks_from_boxes returns (shape, count, 32
seeded pixels). Weaker than the GroundingDINO check: the in-repo side is the same
upstream code in package form (a comparison of the two copies and of our glue).
"""

import json
import pathlib
import tempfile
from typing import List

import cv2
import numpy as np
import torch

from metrics.detection import grounding_dino
from metrics.segmentation import sam_v1
from metrics.segmentation import tiny_sam_v1
from tools.calibration import frames as frames_lib
from tools.calibration import official_numbers
from tools.calibration import parity_table

BACKEND = sam_v1.BACKEND_NAME
TEST = "//tools/calibration:sam_v1_parity_test"
OFFICIAL = "tools/calibration/sam_v1_official.csv"
SEED = 0
NOISE = 0.02
FRAMES = tuple(range(0, len(frames_lib.SIZES) * frames_lib.FRAMES_PER_SIZE,
                     frames_lib.FRAMES_PER_SIZE))
REFERENCE = ("AMAP-ML/VMBench @c278a73 Grounded-Segment-Anything/segment_anything "
             "(torch 2.14.1, CPU), run outside the repository; numbers in " + OFFICIAL)


def _entries(every_frame):
    """Per frame: two boxes (fractions of the frame) and both original sizes."""
    out = []
    for i in FRAMES:
        h, w = every_frame[i].shape[:2]
        boxes = [[0.2 * w, 0.15 * h, 0.7 * w, 0.8 * h], [0.05 * w, 0.5 * h, 0.45 * w, 0.95 * h]]
        out.append({"frame": i, "boxes": [[round(v, 2) for v in b] for b in boxes],
                    "original_sizes": {"faithful": [3, grounding_dino.resized_size(w, h)[0]],
                                       "corrected": [h, w]}})
    return out


def write_inputs(folder) -> pathlib.Path:
    """The tiny SAM checkpoint and sam_v1_inputs.json; returns the checkpoint."""
    checkpoint = tiny_sam_v1.write_checkpoint(folder, seed=SEED, noise=NOISE)
    spec = {"checkpoint": checkpoint.name, "tiny_config": tiny_sam_v1.TINY,
            "frames": _entries(frames_lib.all_frames())}
    (pathlib.Path(folder) / "sam_v1_inputs.json").write_text(json.dumps(spec, indent=1),
                                                             encoding="utf-8")
    return checkpoint


def run() -> List[parity_table.Row]:
    every_frame = frames_lib.all_frames()
    official = official_numbers.read(OFFICIAL)
    with tempfile.TemporaryDirectory() as tmp:
        predictor = sam_v1.load_sam(tiny_sam_v1.write_checkpoint(tmp, seed=SEED, noise=NOISE),
                                    tiny_config=tiny_sam_v1.TINY)
    ours = {"preprocess": [], "features": [], "score": []}
    theirs = {"preprocess": [], "features": [], "score": []}

    def add(check, i, name, tensor):
        wanted = official[(i, name)]
        ours[check].append(official_numbers.stats_like(tensor, wanted))
        theirs[check].append(np.array([v for _, _, v in wanted]))

    for entry in _entries(every_frame):
        i = entry["frame"]
        rgb = cv2.cvtColor(every_frame[i], cv2.COLOR_BGR2RGB)
        for mode, size in entry["original_sizes"].items():
            boxes = np.array(entry["boxes"], dtype=np.float32)
            masks = sam_v1.masks_from_boxes(predictor, rgb, boxes, size)
            transformed = predictor.transform.apply_boxes_torch(torch.tensor(boxes), tuple(size))
            with torch.no_grad():
                logits, _, _ = predictor.predict_torch(point_coords=None, point_labels=None,
                                                       boxes=transformed, multimask_output=False,
                                                       return_logits=True)
            add("preprocess", i, f"{mode}:boxes", transformed)
            add("features", i, f"{mode}:mask_logits", logits[:, 0])
            add("score", i, f"{mode}:masks", masks)
        image = torch.as_tensor(predictor.transform.apply_image(rgb)).permute(2, 0, 1)
        add("preprocess", i, "input_image", predictor.model.preprocess(image[None].float())[0])
        add("features", i, "image_embedding", predictor.features[0])
    sizes = ", ".join(f"{w}x{h}" for h, w in frames_lib.SIZES)
    common = dict(reference=REFERENCE, test=TEST, weights=f"random (seed {SEED}): "
                  f"metrics/segmentation tiny_sam_v1 + noise std {NOISE}",
                  inputs=f"the first BGR frame of each size of the //tools/fixtures room (seed "
                         f"{frames_lib.SEED}) at {sizes}; 2 boxes each, original_size (3, H') "
                         "and (H, W)")
    what = {"preprocess": "SAM's input image tensor and apply_boxes_torch's boxes",
            "features": "the image embedding and the mask logits",
            "score": "sam_v1.masks_from_boxes' boolean masks"}
    return [parity_table.compare(BACKEND, check, ours[check], theirs[check],
                                 compared=f"{what[check]}: shape, mean, RMS and 32 values "
                                 "per frame (boxes: every value) vs the official run's",
                                 **common)
            for check in ("preprocess", "features", "score")]
