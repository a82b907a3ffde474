"""The official side of the Depth Anything parity check; runs OUTSIDE the repository.

Not a Bazel target: it needs transformers < 5 (the official code's requirement), which the
lock cannot hold. How depth_anything_official.csv was produced (2026-12-01):

    python3.11 -m venv /tmp/da4
    /tmp/da4/bin/pip install --only-binary=:all: transformers==4.57.1 "numpy<2.4" pillow \
        opencv-python-headless safetensors torch==2.13.0+cpu   # (CPU wheel)
    bazel run //tools/calibration:official_run_inputs -- --output_dir=/tmp/da_in
    /tmp/da4/bin/python tools/calibration/official_runs/depth_anything.py \
        /tmp/da_in/depth_anything_v2_small /tmp/da_in/frames.npy \
        tools/calibration/depth_anything_official.csv

The calls are the official code's (MemoBench evaluation/automated/metrics/geometry.py
@f4edb0c, spec section 4.4): AutoImageProcessor / AutoModelForDepthEstimation
.from_pretrained, per frame processor(images=<PIL RGB of the BGR frame>,
return_tensors="pt") and model(**inputs).predicted_depth.squeeze(); the pair cosine is the
spec's formula (min-max with eps 1e-8, flatten, L2, dot, clip to [0, 1]) in float64.
"""
import csv, sys, numpy as np, torch, cv2
from PIL import Image
import transformers
from transformers import AutoImageProcessor, AutoModelForDepthEstimation
folder, frames_path, out_path = sys.argv[1:4]
processor = AutoImageProcessor.from_pretrained(folder)
model = AutoModelForDepthEstimation.from_pretrained(folder).eval()
frames = np.load(frames_path, allow_pickle=True)
rng = np.random.default_rng(1234)
rows, depths = [], []
def stats(i, name, t):
    flat = t.astype(np.float64).ravel()
    rows.append((i, name, "x".join(map(str, t.shape)), "sum", repr(float(flat.sum()))))
    rows.append((i, name, "x".join(map(str, t.shape)), "sumsq", repr(float((flat**2).sum()))))
    for k in sorted(rng.choice(flat.size, 32, replace=False)):
        rows.append((i, name, "x".join(map(str, t.shape)), f"at:{k}", repr(float(flat[k]))))
for i, f in enumerate(frames):
    pil = Image.fromarray(cv2.cvtColor(f, cv2.COLOR_BGR2RGB))
    inputs = processor(images=pil, return_tensors="pt")
    with torch.no_grad():
        d = model(**inputs).predicted_depth.squeeze().numpy()
    stats(i, "pixel_values", inputs["pixel_values"][0].numpy())
    stats(i, "predicted_depth", d)
    depths.append(d)
def vec(d):
    d = d.astype(np.float64); d = (d - d.min()) / (d.max() - d.min() + 1e-8); v = d.ravel()
    return v / np.linalg.norm(v)
for i in range(len(depths) - 1):
    if depths[i].shape == depths[i + 1].shape:
        c = float(np.clip(vec(depths[i]) @ vec(depths[i + 1]), 0, 1))
        rows.append((i, "pair_cosine_next", "", "value", repr(c)))
with open(out_path, "w", newline="") as fh:
    w = csv.writer(fh, lineterminator="\n")
    w.writerow(("frame", "tensor", "shape", "stat", "value"))
    w.writerows(rows)
print(transformers.__version__, torch.__version__, type(processor).__name__, len(rows))
