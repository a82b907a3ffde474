"""The official side of the CLIPScore parity check; runs OUTSIDE the repository.

torchmetrics is not in the lock; it ran in a scratch virtualenv whose base.pth lists
the worktree's locked site folders (torch 2.14.1, torchvision 0.29.1, transformers
5.18.0, tokenizers, ...) (2026-12-01):

    python3.11 -m venv /tmp/ws2-venv     # + base.pth as above
    /tmp/ws2-venv/bin/pip install torchmetrics==1.9.0 lightning-utilities
    bazel run //tools/calibration:official_run_inputs -- --only=gram,clip_score --output_dir=/tmp/gram_in
    bazel run //tools/calibration:official_run_inputs -- --output_dir=/tmp/parity_in  # frames.npy
    /tmp/ws2-venv/bin/python tools/calibration/official_runs/torchmetrics_clip_score.py \
        /tmp/gram_in/clip_score_tiny /tmp/parity_in/frames.npy \
        tools/calibration/torchmetrics_clip_score_official.csv

`CLIPScore(model_name_or_path=callable)` gets the snapshot's CLIPModel and
CLIPProcessor (`from_pretrained`, as torchmetrics does for "openai/..." names). With
transformers 5.x, torchmetrics 1.9.0 crashes in `_clip_score_update` (it divides the
`BaseModelOutputWithPooling` that get_image_features now returns by its norm); the model
is therefore wrapped so that get_image_features / get_text_features return their
`pooler_output` (the projected features, the tensor transformers 4.x returned). One
metric call per (frame, text), as WorldScore calls it per image; the frame as a CHW
uint8 RGB tensor. Also written: the pixel_values of torchmetrics' own processor call
(`processor(images=[...], return_tensors="pt", padding=True)`) and the normalised
image features.
"""

import csv
import sys

import numpy as np
import torch
from torchmetrics.multimodal.clip_score import CLIPScore
from transformers import CLIPModel
from transformers import CLIPProcessor

TEXTS = ("a red ball", "textured walls " * 12)  # clip_score_parity.TEXTS


class _Transformers4Features(CLIPModel):
    def get_image_features(self, *args, **kwargs):
        return super().get_image_features(*args, **kwargs).pooler_output

    def get_text_features(self, *args, **kwargs):
        return super().get_text_features(*args, **kwargs).pooler_output


def main(snapshot, frames_npy, out_path):
    model = _Transformers4Features.from_pretrained(snapshot).eval()
    processor = CLIPProcessor.from_pretrained(snapshot)
    metric = CLIPScore(model_name_or_path=lambda: (model, processor))
    frames = np.load(frames_npy, allow_pickle=True)
    rng, rows = np.random.default_rng(1234), []

    def stats(i, name, t):
        flat = t.astype(np.float64).ravel()
        shape = "x".join(map(str, t.shape))
        rows.append((i, name, shape, "sum", repr(float(flat.sum()))))
        rows.append((i, name, shape, "sumsq", repr(float((flat ** 2).sum()))))
        for k in sorted(rng.choice(flat.size, min(32, flat.size), replace=False)):
            rows.append((i, name, shape, f"at:{k}", repr(float(flat[k]))))

    for i, frame in enumerate(frames):
        image = torch.from_numpy(np.ascontiguousarray(frame[..., ::-1])).permute(2, 0, 1)
        pixels = processor(images=[image], return_tensors="pt", padding=True)["pixel_values"]
        stats(i, "pixel_values", pixels[0].numpy())
        with torch.no_grad():
            feats = model.get_image_features(pixels)
        stats(i, "image_features", (feats / feats.norm(p=2, dim=-1, keepdim=True))[0].numpy())
        for k, text in enumerate(TEXTS):
            rows.append((i, f"score_{k}", "", "value", repr(float(metric(image, text).item()))))
    with open(out_path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(("frame", "tensor", "shape", "stat", "value"))
        writer.writerows(rows)
    print(f"{len(rows)} rows, torch {torch.__version__}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
