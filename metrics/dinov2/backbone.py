"""DINOv2 ViT-B/14 patch tokens, as the official patch identity sees them (spec §4.3).

The official code loads `torch.hub.load("facebookresearch/dinov2", "dinov2_vitb14")` and reads
`forward_features(x)["x_norm_patchtokens"]`. We load the same weights from the Hugging
Face snapshot `facebook/dinov2-base` into transformers' `Dinov2Model`, whose
`last_hidden_state` is the final LayerNorm applied to every token (CLS first, no
register tokens), so `last_hidden_state[:, 1:]` is the hub's `x_norm_patchtokens`.

One difference is closed here: the checkpoint's position embeddings cover a 37x37 grid
(518 px). For a 224 px input the hub model resizes them to 16x16 with bicubic
`interpolate(scale_factor=(16 + 0.1) / 37)` (its `interpolate_offset=0.1`, no
antialias), while transformers asks for `size=(16, 16)`, which samples a slightly
different grid. `load_dinov2` therefore replaces the position table by the hub's 16x16
resampling once, so that transformers uses it as is for 224 px inputs.

Preprocessing, as the official `_DINO_TRANSFORM` on an RGB PIL image of the (640
max-side) BGR frame: Resize(256, bicubic) of the shorter side, CenterCrop(224),
ToTensor, Normalize(ImageNet mean/std).
"""

import pathlib
from typing import Sequence

import cv2
import numpy as np
import torch
import torch.nn.functional as F
import torchvision.transforms as T
from PIL import Image
from transformers import Dinov2Model

from metrics import device as device_lib
from metrics.checkpoints import resolver

# Pinned: commit f9e44c8 is the head of main (https://huggingface.co/facebook/dinov2-base/
# tree/main; the full id as embeddings-benchmark/mteb pins it, docs/overview/
# available_models/image.md); model.safetensors' LFS sha256 is the one the hub publishes
# (https://huggingface.co/facebook/dinov2-base/blob/main/model.safetensors, unchanged since
# c73891f "Upload safetensors version (#3)"), 346,345,912 bytes as independent pins record.
DINOV2_BASE = resolver.CheckpointSpec(
    name="dinov2_base",
    filename="model.safetensors",
    hf_repo="facebook/dinov2-base",
    hf_revision="f9e44c814b77203eaa57a6bdbbd535f21ede1415",
    snapshot=True,
    sha256="d73036b56966966d07975d696bde331762f37297e2f095de8cea0040c3aa0841",
    size_bytes=346_345_912,
    license="Apache-2.0",
)

BACKEND_NAME = "dinov2-vitb14"
RESIZE = 256
CROP = 224
IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
# torch.hub dinov2_vitb14: DinoVisionTransformer(interpolate_offset=0.1, interpolate_antialias=False).
HUB_INTERPOLATE_OFFSET = 0.1

TRANSFORM = T.Compose([
    T.Resize(RESIZE, interpolation=T.InterpolationMode.BICUBIC),
    T.CenterCrop(CROP),
    T.ToTensor(),
    T.Normalize(mean=IMAGENET_MEAN, std=IMAGENET_STD),
])


def hub_position_embeddings(position_embeddings: torch.Tensor, grid: int,
                            offset: float = HUB_INTERPOLATE_OFFSET) -> torch.Tensor:
    """The position table the torch.hub DINOv2 uses for a `grid` x `grid` patch input.

    Args:
        position_embeddings: (1, 1 + M*M, D) table, CLS position first.
        grid: Patches per side of the input (16 for 224 px and patch 14).
        offset: The hub's `interpolate_offset`; 0 reproduces `size=(grid, grid)`.

    Returns:
        (1, 1 + grid*grid, D) float32 table: the CLS entry unchanged and the M x M patch
        grid resampled bicubically (align_corners=False, no antialias) with scale factor
        (grid + offset) / M, or returned unchanged when M == grid.

    Raises:
        ValueError: If the patch entries do not form a square grid.
    """
    num_positions = position_embeddings.shape[1] - 1
    side = int(round(num_positions ** 0.5))
    if side * side != num_positions:
        raise ValueError(f"expected a square grid of position embeddings, got {num_positions}")
    table = position_embeddings.detach().float()
    if side == grid:
        return table
    dim = table.shape[-1]
    patches = table[:, 1:].reshape(1, side, side, dim).permute(0, 3, 1, 2)
    if offset:
        scale = (grid + offset) / side
        patches = F.interpolate(patches, scale_factor=(scale, scale), mode="bicubic",
                                antialias=False)
    else:
        patches = F.interpolate(patches, size=(grid, grid), mode="bicubic", antialias=False)
    if patches.shape[-2:] != (grid, grid):
        raise ValueError(f"resampled grid is {tuple(patches.shape[-2:])}, expected {grid}x{grid}")
    patches = patches.permute(0, 2, 3, 1).reshape(1, grid * grid, dim)
    return torch.cat((table[:, :1], patches), dim=1)


def load_dinov2(snapshot_dir, device) -> Dinov2Model:
    """Loads a DINOv2 snapshot folder (config.json + model.safetensors) for 224 px inputs.

    Args:
        snapshot_dir: The folder, e.g. `resolver.resolve(DINOV2_BASE, ...).path`.
        device: torch.device or device string.

    Returns:
        The float32 model in eval mode on `device`, with the hub's 16x16 position table.

    Raises:
        FileNotFoundError: If the folder has no config.json.
    """
    config = pathlib.Path(snapshot_dir) / "config.json"
    if not config.is_file():
        raise FileNotFoundError(f"{snapshot_dir}: expected config.json in the snapshot folder, "
                                "found nothing")
    model = Dinov2Model.from_pretrained(str(snapshot_dir), dtype=torch.float32,
                                        local_files_only=True)
    patch = model.config.patch_size
    patch = patch[0] if isinstance(patch, (list, tuple)) else patch
    embeddings = model.embeddings
    table = hub_position_embeddings(embeddings.position_embeddings, CROP // patch)
    embeddings.position_embeddings = torch.nn.Parameter(table, requires_grad=False)
    return model.to(device).eval()


def preprocess(frames_bgr: Sequence[np.ndarray]) -> torch.Tensor:
    """The official transform of each BGR uint8 frame, stacked: (B, 3, 224, 224) float32."""
    if len(frames_bgr) == 0:
        raise ValueError("expected at least one frame")
    images = []
    for frame in frames_bgr:
        frame = np.asarray(frame)
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError(f"expected HxWx3 uint8 BGR frames, got {frame.dtype} {frame.shape}")
        images.append(TRANSFORM(Image.fromarray(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB))))
    return torch.stack(images)


def patch_tokens(model: Dinov2Model, frames_bgr: Sequence[np.ndarray], device) -> torch.Tensor:
    """L2-normalised DINOv2 patch tokens of the frames, in one model call.

    Args:
        model: From load_dinov2.
        frames_bgr: BGR uint8 frames (any size; each is resized and cropped to 224).
        device: Where the model is.

    Returns:
        (B, 256, D) float32 tensor on `device` (D = 768 for dinov2-base): the final
        LayerNorm's patch tokens (CLS dropped), each scaled to unit length.
    """
    pixels = device_lib.to_device(preprocess(frames_bgr), device)
    with torch.no_grad():
        hidden = model(pixel_values=pixels).last_hidden_state
    return F.normalize(hidden[:, 1:, :], dim=-1)
