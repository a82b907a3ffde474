"""The official side of the DINOv2 parity check; runs OUTSIDE the repository.

The official code's DINOv2 is torch.hub code from github.com/facebookresearch/dinov2 (read
here at b8931f7), not a registry package. How dinov2_official.csv was produced
(2026-12-01), with the /tmp/iqa virtualenv of official_runs/clipiqa.py (torch 2.14.1,
torchvision 0.29.1, numpy, pillow, opencv):

    git -C <dinov2 clone> archive b8931f7 | tar -x -C /tmp/dinov2src
    bazel run //tools/calibration:official_run_inputs -- --output_dir=/tmp/parity_in
    /tmp/iqa/bin/python tools/calibration/official_runs/dinov2.py /tmp/dinov2src \\
        /tmp/parity_in tools/calibration/dinov2_official.csv

The model is the hub's DinoVisionTransformer with dinov2/hub/backbones.py's settings
for dinov2_vitb14 and the tiny width of metrics/dinov2/tiny_checkpoint (32 wide, 2 blocks,
2 heads, MLP ratio 2), loaded strictly from the hub-layout file. The transform is
MemoBench geometry.py's (Resize(256, bicubic), CenterCrop(224), ToTensor, ImageNet
Normalize on the RGB PIL frame); the identity is the spec's formula (section 4.3): per-patch
dot product of L2-normalised tokens with frame 0's, clamped to [0, 1], top
int(256 * 0.4), mean and min.
"""

import csv
import functools
import pathlib
import sys

import cv2
import numpy as np
from PIL import Image
import torch
import torch.nn.functional as F
import torchvision.transforms as T


def main(dinov2_src, inputs, out_path):
    sys.path.insert(0, dinov2_src)
    # pylint: disable=import-outside-toplevel  (the clone is on sys.path only from here)
    from dinov2.layers import MemEffAttention
    from dinov2.layers import NestedTensorBlock
    from dinov2.models.vision_transformer import DinoVisionTransformer
    model = DinoVisionTransformer(
        img_size=518, patch_size=14, embed_dim=32, depth=2, num_heads=2, mlp_ratio=2,
        init_values=1.0, ffn_layer="mlp", block_chunks=0, num_register_tokens=0,
        interpolate_antialias=False, interpolate_offset=0.1,
        block_fn=functools.partial(NestedTensorBlock, attn_class=MemEffAttention))
    inputs = pathlib.Path(inputs)
    model.load_state_dict(torch.load(inputs / "dinov2_hub_layout.pth"), strict=True)
    model.eval()
    transform = T.Compose([T.Resize(256, interpolation=T.InterpolationMode.BICUBIC),
                           T.CenterCrop(224), T.ToTensor(),
                           T.Normalize(mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225))])
    frames = np.load(inputs / "frames.npy", allow_pickle=True)
    rng = np.random.default_rng(1234)
    rows, tokens = [], []

    def stats(i, name, t):
        flat = t.astype(np.float64).ravel()
        shape = "x".join(map(str, t.shape))
        rows.append((i, name, shape, "sum", repr(float(flat.sum()))))
        rows.append((i, name, shape, "sumsq", repr(float((flat ** 2).sum()))))
        for k in sorted(rng.choice(flat.size, 32, replace=False)):
            rows.append((i, name, shape, f"at:{k}", repr(float(flat[k]))))

    with torch.no_grad():
        for i, frame in enumerate(frames):
            x = transform(Image.fromarray(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB))).unsqueeze(0)
            patches = model.forward_features(x)["x_norm_patchtokens"][0]
            stats(i, "pixel_values", x[0].numpy())
            stats(i, "x_norm_patchtokens", patches.numpy())
            tokens.append(F.normalize(patches, dim=-1))
    top_k = int(tokens[0].shape[0] * 0.4)
    for i, t in enumerate(tokens):
        top = (tokens[0] * t).sum(-1).clamp(0, 1).topk(top_k).values
        rows.append((i, "identity_mean", "", "value", repr(float(top.mean()))))
        rows.append((i, "identity_min", "", "value", repr(float(top.min()))))
    with open(out_path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(("frame", "tensor", "shape", "stat", "value"))
        writer.writerows(rows)
    print(f"{len(rows)} rows, torch {torch.__version__}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
