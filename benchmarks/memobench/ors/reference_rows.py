"""ors_scores.csv rows as compute_ors.py computes them, written out independently of
step.py (testonly): frames sorted by name, read with cv2.imread, R range from a
transcription of map_keyframes, SAM-3 masks' coverage computed from the binary masks
themselves, and the clip arithmetic in numpy."""

import csv
import re

import cv2
import numpy as np

from metrics.segmentation import sam3


def read_csv(path):
    """(header, rows as dicts) of a CSV file."""
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        return reader.fieldnames, list(reader)


def reference_row(built, detector, clip_id, frames_dir):
    """compute_ors.py on one clip, written out independently."""
    key = ("Real/" if clip_id.isdigit() else "Synthetic/") + clip_id
    spec = built["clips"][key]
    real = clip_id.isdigit()
    paths = sorted(p for p in frames_dir.iterdir() if p.suffix == ".png")
    n = len(paths)
    n_gt = (len(list((spec["gt_dir"] / "FRAMES").iterdir())) if real else
            np.load(spec["files"]["intrinsics"]).shape[0])
    h = max(2, min(round(spec["exit"] / n_gt * n), n - 4))
    r = max(h + 2, min(round(spec["reenter"] / n_gt * n), n - 1))
    text = ("a red ball" if real else
            re.search(r"sees (.*?\(subject\)[^.,]*)", spec["prompt"], re.I).group(1)
            .strip().rstrip(".,"))
    prompt = sam3.encode_prompt(detector, text)
    confidences, n_detected = [], 0
    for path in paths[r:]:
        frame = cv2.imread(str(path))
        if frame is None:
            continue
        found = sam3.detect(detector, cv2.cvtColor(frame, cv2.COLOR_BGR2RGB), prompt,
                            return_masks=True)
        cov = found.masks.reshape(len(found.masks), -1).sum(1) / (frame.shape[0] * frame.shape[1])
        for upper in (0.5, 0.7):
            pool = (cov >= 0.0005) & (cov <= upper)
            if pool.any():
                confidences.append(float(found.scores[pool].max()))
                n_detected += 1
                break
    n_r = n - r
    rate = n_detected / n_r if n_r else 0.0
    mean = float(np.mean(confidences)) if confidences else 0.0
    return {"clip_id": clip_id, "data_type": "real" if real else "synthetic",
            "scene": "real" if real else clip_id.rsplit("_", 1)[0], "n_gen": str(n),
            "r_start": str(r), "ors": str(round(rate * mean, 4)),
            "detection_rate": str(round(rate, 4)), "mean_confidence": str(round(mean, 4)),
            "n_r_frames": str(n_r), "n_detected": str(n_detected)}
