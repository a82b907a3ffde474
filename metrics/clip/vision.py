"""CLIP image towers (transformers) standing in for open_clip's `encode_image`.

The official code calls `open_clip.create_model_and_transforms(<arch>, pretrained="openai")`
and `model.encode_image(x)`. transformers ships the same OpenAI weights converted
(openai/clip-vit-large-patch14, openai/clip-vit-base-patch32): the vision tower
(`vision_model.*`: patch conv without bias, class token, positional embedding,
pre-LayerNorm, residual attention blocks, post-LayerNorm of the class token) and
`visual_projection` (no bias) compute what open_clip's VisionTransformer computes
(ln_pre, transformer, ln_post on token 0, `@ proj`). Attention kernels differ
(open_clip: nn.MultiheadAttention; here: SDPA), so embeddings agree up to float
rounding, not bit for bit.

The activation is a real difference, and a version-dependent one. OpenAI trained
CLIP with QuickGELU (x * sigmoid(1.702 x)), which is what the HF config says
(`hidden_act="quick_gelu"`). Older open_clip loaded the "openai" tag through a
special path (load_openai_model) that always used QuickGELU. open_clip PR #970
(Oct 2024; released in 2.29, and all 3.x) removed that path: the plain "ViT-L-14"
/ "ViT-B-32" configs build nn.GELU (exact, erf) and loading the "openai" tag only
warns ("QuickGELU mismatch between final model config (quick_gelu=False) and
pretrained tag 'openai' (quick_gelu=True)"). The official code asks for
`open-clip-torch>=2.24` with no upper bound and names the plain archs, so a
current install computes its numbers with GELU. `activation` chooses: "gelu"
(OFFICIAL_ACTIVATION, what the official requirements install today) or
"quick_gelu" (the weights as trained; open_clip before PR #970).

Weights are read from the snapshot's `model.safetensors` and loaded strictly:
a full CLIPModel checkpoint may also hold the text tower (`text_model.*`,
`text_projection.weight`, `logit_scale`), which is skipped; any other extra or
missing key is an error, so a wrong folder never runs with random weights.
"""

import dataclasses
import json
import pathlib
from typing import Sequence

import numpy as np
from safetensors import safe_open
import torch
from transformers import CLIPConfig
from transformers import CLIPVisionConfig
from transformers import CLIPVisionModelWithProjection

from metrics import device as device_lib
from metrics.clip import image_transform

OFFICIAL_ACTIVATION = "gelu"
ACTIVATIONS = ("gelu", "quick_gelu")
WEIGHTS_FILE = "model.safetensors"
DEFAULT_BATCH_SIZE = 16

_VISION_PREFIXES = ("vision_model.", "visual_projection.")
_TEXT_PREFIXES = ("text_model.", "text_projection.", "logit_scale")
_NON_PERSISTENT_SUFFIX = "embeddings.position_ids"  # an arange buffer, not saved by the model


@dataclasses.dataclass
class ClipVision:
    """A loaded CLIP image tower.

    Attributes:
        model: CLIPVisionModelWithProjection in eval mode, float32, on `device`.
        device: Where the model runs.
        image_size: Its input size (the open_clip transform's crop size).
        activation: "gelu" or "quick_gelu" (see the module docstring).
    """

    model: CLIPVisionModelWithProjection
    device: torch.device
    image_size: int
    activation: str

    @property
    def embed_dim(self) -> int:
        return int(self.model.config.projection_dim)


def _vision_config(folder: pathlib.Path) -> CLIPVisionConfig:
    """The vision config of a CLIPModel or CLIPVisionModelWithProjection folder."""
    config_path = folder / "config.json"
    if not config_path.is_file():
        raise ValueError(f"{folder}: expected a CLIP snapshot with config.json, found none")
    raw = json.loads(config_path.read_text(encoding="utf-8"))
    if raw.get("model_type") == "clip":
        full = CLIPConfig.from_pretrained(str(folder))
        config = full.vision_config
        # CLIPModel sizes visual_projection by the top-level projection_dim.
        config.projection_dim = full.projection_dim
        return config
    if raw.get("model_type") == "clip_vision_model":
        return CLIPVisionConfig.from_pretrained(str(folder))
    raise ValueError(f"{config_path}: expected model_type clip or clip_vision_model, "
                     f"found {raw.get('model_type')!r}")


def _vision_state(weights: pathlib.Path) -> dict:
    """The vision tower's tensors (float32) from a safetensors file; see module docstring."""
    state = {}
    with safe_open(str(weights), framework="pt") as f:
        for key in f.keys():
            if key.endswith(_NON_PERSISTENT_SUFFIX) or key.startswith(_TEXT_PREFIXES):
                continue
            if not key.startswith(_VISION_PREFIXES):
                raise ValueError(f"{weights}: unexpected key {key!r} in a CLIP checkpoint")
            state[key] = f.get_tensor(key).to(torch.float32)
    return state


def load_clip_vision(folder, device, activation: str = OFFICIAL_ACTIVATION) -> ClipVision:
    """Loads a CLIP image tower with projection from a hub snapshot folder.

    Args:
        folder: Folder holding config.json and model.safetensors (e.g. the path
            metrics.checkpoints.resolver.resolve returns for a snapshot spec).
        device: torch.device or device string.
        activation: "gelu" or "quick_gelu" for every MLP of the tower.

    Returns:
        The ClipVision, in eval mode on `device`.

    Raises:
        ValueError: Not a CLIP snapshot, an unknown activation, or the weights do
            not match the config (missing, unexpected or misshapen tensors).
    """
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {ACTIVATIONS}, got {activation!r}")
    folder = pathlib.Path(folder)
    config = _vision_config(folder)
    weights = folder / WEIGHTS_FILE
    if not weights.is_file():
        raise ValueError(f"{folder}: expected {WEIGHTS_FILE}, found none")
    config.hidden_act = activation
    model = CLIPVisionModelWithProjection(config)
    try:
        model.load_state_dict(_vision_state(weights), strict=True)
    except RuntimeError as e:
        raise ValueError(f"{weights}: does not fit its config: {e}") from e
    device = torch.device(device)
    return ClipVision(model.to(device).eval(), device, int(config.image_size), activation)


def image_embeddings(encoder: ClipVision, frames_bgr: Sequence[np.ndarray],
                     batch_size: int = DEFAULT_BATCH_SIZE) -> torch.Tensor:
    """`encode_image(preprocess(frame)).float()`, L2-normalised, for each BGR frame.

    Args:
        encoder: A loaded ClipVision.
        frames_bgr: (H, W, 3) uint8 BGR frames (sizes may differ).
        batch_size: Frames per model call.

    Returns:
        (N, embed_dim) float32 tensor of unit vectors, on the encoder's device.

    Raises:
        ValueError: No frames, a bad frame, or a non-positive batch_size.
    """
    if batch_size <= 0:
        raise ValueError(f"batch_size must be positive, got {batch_size}")
    if len(frames_bgr) == 0:
        raise ValueError("expected at least one frame")
    chunks = []
    for start in range(0, len(frames_bgr), batch_size):
        pixels = device_lib.to_device(image_transform.frames_to_pixel_values(
            frames_bgr[start:start + batch_size], encoder.image_size), encoder.device)
        with torch.no_grad():
            features = encoder.model(pixel_values=pixels).image_embeds.float()
        chunks.append(features / features.norm(dim=-1, keepdim=True))
    return torch.cat(chunks)
