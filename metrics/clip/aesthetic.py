"""The LAION aesthetic predictor (improved-aesthetic-predictor) on CLIP ViT-L/14.

Each frame (BGR uint8) becomes an RGB PIL image, goes through open_clip's
ViT-L-14/openai eval transform and `encode_image(x).float()`, is L2-normalised and fed
to the MLP head

    Linear(768, 1024) - Dropout(0.2) - Linear(1024, 128) - Dropout(0.2) -
    Linear(128, 64) - Dropout(0.1) - Linear(64, 16) - Linear(16, 1)

in eval mode, loaded from `sac+logos+ava1-l14-linearMSE.pth` after
`{k.replace("layers.", ""): v}` (the released file keys its nn.Sequential as
`layers.N.*`) with load_state_dict's default strict=True. The score of a frame is the
head's output (~0-10). `tensor_scores` is pyiqa's laion_aes path instead (tensor
preprocessing, see there).

Frames go `batch_size` at a time (equal to one call per frame up to float rounding).
How a benchmark reduces a clip's frame scores (which frames, mean, rounding) is the
benchmark's. The backbone is transformers' CLIP, see metrics.clip.vision (activation)
and metrics.clip.image_transform (preprocessing).
"""

import dataclasses
from typing import List, Sequence

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from metrics import device as device_lib
from metrics.aesthetic import pins
from metrics.checkpoints import state_dict
from metrics.clip import image_transform
from metrics.clip import vision
from metrics.video import sampling

# The pins live in metrics/aesthetic/pins.py (torch-free), with the v1 linear head's
# (pins.LAION_AESTHETIC_LINEAR, not named here: a module's specs are what its users load).
CLIP_VIT_L14 = pins.CLIP_VIT_L14
AESTHETIC_HEAD = pins.AESTHETIC_HEAD

HEAD_INPUT_DIM = 768
_OFFICIAL_KEY_PREFIX = "layers."


@dataclasses.dataclass
class AestheticModel:
    """The ViT-L/14 image tower and the LAION MLP head, both in eval mode."""

    clip: vision.ClipVision
    head: nn.Module



def build_head(input_dim: int = HEAD_INPUT_DIM) -> nn.Sequential:
    """The official MLP head architecture (random weights); ImageReward reuses it."""
    return nn.Sequential(
        nn.Linear(input_dim, 1024),
        nn.Dropout(0.2),
        nn.Linear(1024, 128),
        nn.Dropout(0.2),
        nn.Linear(128, 64),
        nn.Dropout(0.1),
        nn.Linear(64, 16),
        nn.Linear(16, 1),
    )


def load_head(head_path, device) -> nn.Sequential:
    """Loads the head as the official code does: every "layers." removed from the keys.

    Raises:
        ValueError: If the file is not a torch-saved state dict.
        RuntimeError: If the keys or shapes do not match the architecture.
    """
    state = {key.replace(_OFFICIAL_KEY_PREFIX, ""): value
             for key, value in state_dict.read_state_dict(head_path).items()}
    head = build_head()
    head.load_state_dict(state, strict=True)
    return head.to(device).eval()


def load_linear_head(head_path, device, input_dim: int = HEAD_INPUT_DIM) -> nn.Linear:
    """LAION-AI/aesthetic-predictor's v1 head: `nn.Linear(768, 1)` loaded strictly from
    its state dict (`weight`, `bias`; e.g. sa_0_4_vit_l_14_linear.pth), in eval mode.

    Raises:
        ValueError: If the file is not a torch-saved state dict.
        RuntimeError: If the keys or shapes do not match nn.Linear(input_dim, 1).
    """
    head = nn.Linear(input_dim, 1)
    head.load_state_dict(state_dict.read_state_dict(head_path), strict=True)
    return head.to(device).eval()


def load_tower(clip_dir, device, activation: str = vision.OFFICIAL_ACTIVATION) -> vision.ClipVision:
    """Loads the ViT-L/14 image tower and checks it projects to the head's 768 inputs.

    Raises:
        ValueError: Not a CLIP snapshot, or a projection other than 768-d.
    """
    clip = vision.load_clip_vision(clip_dir, device, activation)
    if clip.embed_dim != HEAD_INPUT_DIM:
        raise ValueError(f"{clip_dir}: the aesthetic head takes {HEAD_INPUT_DIM}-d "
                         f"embeddings (ViT-L/14), this model projects to {clip.embed_dim}")
    return clip


def load_aesthetic(clip_dir, head_path, device,
                   activation: str = vision.OFFICIAL_ACTIVATION) -> AestheticModel:
    """Loads the ViT-L/14 image tower (a snapshot folder) and the head (a .pth file).

    Args:
        clip_dir: Snapshot folder of openai/clip-vit-large-patch14 (config.json,
            model.safetensors), e.g. `resolver.resolve(CLIP_VIT_L14).path`.
        head_path: `sac+logos+ava1-l14-linearMSE.pth`.
        device: torch.device or device string.
        activation: The tower's MLP activation, see metrics.clip.vision.

    Raises:
        ValueError: See load_tower.
        RuntimeError: The head file does not match the head.
    """
    return AestheticModel(load_tower(clip_dir, device, activation), load_head(head_path, device))


def load_aesthetic_linear(clip_dir, head_path, device,
                          activation: str = vision.OFFICIAL_ACTIVATION) -> AestheticModel:
    """The ViT-L/14 tower (see load_aesthetic) with the v1 linear head (load_linear_head)."""
    return AestheticModel(load_tower(clip_dir, device, activation),
                          load_linear_head(head_path, device))


def frame_scores(frames_bgr: Sequence[np.ndarray], model: AestheticModel, device,
                 batch_size: int = vision.DEFAULT_BATCH_SIZE) -> List[float]:
    """The head's score of each frame (embeddings computed batch_size at a time)."""
    features = vision.image_embeddings(model.clip, frames_bgr, batch_size)
    with torch.no_grad():
        scores = model.head(features.to(device))
    return [float(s) for s in scores[:, 0].cpu()]


def rgb_frame_scores(frames_rgb: Sequence[np.ndarray], model: AestheticModel,
                     batch_size: int = vision.DEFAULT_BATCH_SIZE) -> np.ndarray:
    """`frame_scores` of RGB uint8 frames (sizes may differ) on the tower's device, (N,)."""
    return np.asarray(frame_scores([f[:, :, ::-1] for f in frames_rgb], model,
                                   model.clip.device, batch_size))


def tensor_scores(images: torch.Tensor, model: AestheticModel, device) -> List[float]:
    """pyiqa `laion_aes` in eval mode (archs/laion_aes_arch.py, read at pyiqa 0.1.16) on
    (N, 3, H, W) float images in [0, 1]: `clip_preprocess_tensor`, `encode_image`,
    `.float()`, `F.normalize(p=2, dim=-1)`, the MLP head.

    Precision: float32 on every device. pyiqa calls `clip_model.to(x)` on the float32
    input, which casts the float16 model `clip.load` makes on CUDA back to float32 (its
    values stay the float16-stored OpenAI weights, which the converted transformers
    snapshot holds too).
    """
    pixels = image_transform.clip_preprocess_tensor(images, model.clip.image_size)
    with torch.no_grad():
        embeds = model.clip.model(
            pixel_values=device_lib.to_device(pixels.float(), model.clip.device)).image_embeds
        scores = model.head(F.normalize(embeds.float(), p=2, dim=-1).to(device))
    return [float(s) for s in scores[:, 0].cpu()]


def strided_frame_scores(frames_bgr: Sequence[np.ndarray], sample_step: int,
                         model: AestheticModel, device,
                         batch_size: int = vision.DEFAULT_BATCH_SIZE) -> sampling.FrameScores:
    """The scores of frames 0, step, 2*step, ... (iter_indices(0, N-1, step)).

    Raises:
        ValueError: If sample_step is not a positive int.
    """
    indices = sampling.iter_indices(0, len(frames_bgr) - 1, sample_step, len(frames_bgr))
    if not indices:
        return sampling.FrameScores([], [])
    return sampling.FrameScores(
        indices, frame_scores([frames_bgr[i] for i in indices], model, device, batch_size))
