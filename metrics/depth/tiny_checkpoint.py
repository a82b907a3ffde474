"""Test support: a tiny random Depth Anything saved in the real snapshot layout.

The backbone keeps Depth-Anything-V2-Small's patch size (14) and position grid (518 px),
with hidden size 32 and 4 layers; the neck and head are narrow. The head's convolutions
are re-drawn at a larger scale so that the predicted depth is positive and varied (the
init's tiny weights give maps of ~1e-7, half of them clipped to 0 by the final ReLU).
preprocessor_config.json is written as the official repository's: the slow
`DPTImageProcessor`, 518x518, keep_aspect_ratio, ensure_multiple_of 14, bicubic,
ImageNet mean/std, no padding.
"""

import json
import pathlib

import torch
from transformers import AutoModelForDepthEstimation, DepthAnythingConfig, Dinov2Config

from metrics.depth import depth_anything

PREPROCESSOR_CONFIG = {
    "do_normalize": True,
    "do_pad": False,
    "do_rescale": True,
    "do_resize": True,
    "ensure_multiple_of": 14,
    "image_mean": [0.485, 0.456, 0.406],
    "image_processor_type": "DPTImageProcessor",
    "image_std": [0.229, 0.224, 0.225],
    "keep_aspect_ratio": True,
    "resample": 3,
    "rescale_factor": 1 / 255,
    "size": {"height": 518, "width": 518},
    "size_divisor": None,
}


def tiny_config() -> DepthAnythingConfig:
    backbone = Dinov2Config(hidden_size=32, num_hidden_layers=4, num_attention_heads=2,
                            mlp_ratio=2, patch_size=14, image_size=518,
                            out_indices=[1, 2, 3, 4], reshape_hidden_states=False)
    return DepthAnythingConfig(backbone_config=backbone, reassemble_hidden_size=32,
                               neck_hidden_sizes=[8, 16, 32, 32], fusion_hidden_size=16,
                               head_hidden_size=8)


def save_tiny_depth_anything(checkpoint_dir, seed: int = 0) -> pathlib.Path:
    """Saves a random tiny model + processor config under <checkpoint_dir>/<spec.name>."""
    torch.manual_seed(seed)
    model = AutoModelForDepthEstimation.from_config(tiny_config()).eval()
    with torch.no_grad():
        for conv in (model.head.conv1, model.head.conv2, model.head.conv3):
            conv.weight.normal_(0.0, 0.5)
            conv.bias.fill_(0.2)
    folder = pathlib.Path(checkpoint_dir) / depth_anything.DEPTH_ANYTHING_V2_SMALL.name
    model.save_pretrained(str(folder))
    (folder / "preprocessor_config.json").write_text(json.dumps(PREPROCESSOR_CONFIG, indent=2))
    return folder
