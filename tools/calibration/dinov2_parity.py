"""DINOv2 ViT-B/14 parity: worldeval's metrics/dinov2 (transformers Dinov2Model) against
the official torch.hub code (facebookresearch/dinov2), via stored numbers.

The official ObjIdentityConsistency code runs `torch.hub.load("facebookresearch/dinov2",
"dinov2_vitb14")`: code fetched from GitHub at run time, not a registry package. Its
DinoVisionTransformer ran outside the repository (official_runs/dinov2.py, the repository
at b8931f7 on sys.path, the locked torch 2.14.1) with the hub builder's settings
(`init_values=1.0`, `ffn_layer="mlp"`, `block_chunks=0`, no registers,
`interpolate_antialias=False`, `interpolate_offset=0.1`, 518 px) at a tiny width, on the
files `//tools/calibration:official_run_inputs` writes: the same random weights as a
Hugging Face snapshot (ours) and in the hub's state-dict layout (`to_hub_layout`: fused
qkv, `ls1.gamma`, `pos_embed`, ...). Only its numbers are committed
(dinov2_official.csv): per frame the official transform's output and
`forward_features(x)["x_norm_patchtokens"]` (shape, sum, sum of squares, 32 seeded
values), and the top-40% per-patch similarity (mean and min) of each frame to frame 0.
"""

import pathlib
import tempfile
from typing import Dict, List

import numpy as np
import torch
from transformers import Dinov2Model

from metrics.dinov2 import backbone
from metrics.dinov2 import identity
from metrics.dinov2 import tiny_checkpoint
from tools.calibration import frames as frames_lib
from tools.calibration import official_numbers
from tools.calibration import parity_table

BACKEND = backbone.BACKEND_NAME
TEST = "//tools/calibration:dinov2_parity_test"
OFFICIAL = "tools/calibration/dinov2_official.csv"
HUB_FILE = "dinov2_hub_layout.pth"
SEED = 0
NOISE = 0.05
REFERENCE = ("facebookresearch/dinov2 @b8931f7 DinoVisionTransformer as hub dinov2_vitb14 "
             "builds it (torch 2.14.1), run outside the repository; numbers in " + OFFICIAL)


def to_hub_layout(state: Dict[str, torch.Tensor], layers: int) -> Dict[str, torch.Tensor]:
    """transformers Dinov2Model tensors renamed into the torch.hub model's layout."""
    hub = {"cls_token": state["embeddings.cls_token"],
           "mask_token": state["embeddings.mask_token"],
           "pos_embed": state["embeddings.position_embeddings"],
           "patch_embed.proj.weight": state["embeddings.patch_embeddings.projection.weight"],
           "patch_embed.proj.bias": state["embeddings.patch_embeddings.projection.bias"],
           "norm.weight": state["layernorm.weight"], "norm.bias": state["layernorm.bias"]}
    for i in range(layers):
        src, dst = f"encoder.layer.{i}.", f"blocks.{i}."
        for part in ("weight", "bias"):
            hub[f"{dst}attn.qkv.{part}"] = torch.cat(
                [state[f"{src}attention.{n}_proj.{part}"] for n in "qkv"])
            for ours, theirs in (("norm1", "norm1"), ("norm2", "norm2"), ("mlp.fc1", "mlp.fc1"),
                                 ("mlp.fc2", "mlp.fc2"), ("attention.o_proj", "attn.proj")):
                hub[f"{dst}{theirs}.{part}"] = state[f"{src}{ours}.{part}"]
        hub[f"{dst}ls1.gamma"] = state[f"{src}layer_scale1.lambda1"]
        hub[f"{dst}ls2.gamma"] = state[f"{src}layer_scale2.lambda1"]
    if len(hub) != len(state) - 4 * layers:  # q, k, v (weight and bias) fused into qkv
        raise ValueError(f"converted {len(hub)} tensors from {len(state)}")
    return {k: v.contiguous() for k, v in hub.items()}


def write_checkpoints(folder) -> pathlib.Path:
    """The HF snapshot (<folder>/dinov2_base) and the hub-layout file; returns the snapshot."""
    snapshot = tiny_checkpoint.save_tiny_dinov2(folder, seed=SEED)
    model = Dinov2Model.from_pretrained(str(snapshot)).eval()
    generator = torch.Generator().manual_seed(SEED + 1)
    with torch.no_grad():
        for _, parameter in model.named_parameters():
            parameter.add_(torch.randn(parameter.shape, generator=generator) * NOISE)
    model.save_pretrained(str(snapshot))
    torch.save(to_hub_layout(model.state_dict(), model.config.num_hidden_layers),
               pathlib.Path(folder) / HUB_FILE)
    return snapshot


def run() -> List[parity_table.Row]:
    frames = frames_lib.all_frames()
    official = official_numbers.read(OFFICIAL)
    with tempfile.TemporaryDirectory() as tmp:
        model = backbone.load_dinov2(write_checkpoints(tmp), "cpu")
    pixels = backbone.preprocess(frames)
    with torch.no_grad():
        hidden = model(pixel_values=pixels).last_hidden_state[:, 1:]
    tokens = backbone.patch_tokens(model, frames, "cpu")
    means, mins = identity.per_frame_identity(tokens[0], tokens)
    common = dict(reference=REFERENCE, test=TEST, inputs=frames_lib.describe(),
                  weights=f"random (seed {SEED}): metrics/dinov2 tiny_checkpoint + noise "
                          f"std {NOISE}")
    rows = [official_numbers.compare_tensors(BACKEND, check, name, list(ours), official,
                                             what, **common)
            for check, name, ours, what in (
                ("preprocess", "pixel_values", pixels, "backbone.preprocess"),
                ("features", "x_norm_patchtokens", hidden, "last_hidden_state[:, 1:]"))]
    theirs = [official[(i, name)][0][2] for name in ("identity_mean", "identity_min")
              for i in range(len(frames))]
    rows.append(parity_table.compare(
        BACKEND, "score", np.array(means + mins), np.array(theirs),
        compared="identity.per_frame_identity (mean, min of the top 40%) vs the official "
        "formula on the official tokens, each frame against frame 0", **common))
    return rows
