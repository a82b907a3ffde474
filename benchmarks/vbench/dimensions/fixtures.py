"""Test support: small videos, tiny random checkpoints in the official formats loaded
through the real loaders, and an independent transcription of VBench's float-tensor
resizes (torch.nn.functional.interpolate called directly, crop offsets and
normalisation in numpy) to check benchmarks.vbench.dimensions.transforms against.
"""

import math
import pathlib

import numpy as np
import torch
import torch.nn.functional as F
from transformers import CLIPConfig
from transformers import CLIPModel
from transformers import CLIPTextConfig

from benchmarks.vbench import dimension
from metrics.clip import tiny_clip
from metrics.dino import vit
from metrics.viclip import tiny_checkpoint as viclip_tiny

TINY_DINO = vit.DinoConfig(embed_dim=32, depth=2, num_heads=2, image_size=64)
CLIP_MEAN = np.array([0.48145466, 0.4578275, 0.40821073], np.float32)
CLIP_STD = np.array([0.26862954, 0.26130258, 0.27577711], np.float32)
IMAGENET_MEAN = np.array([0.485, 0.456, 0.406], np.float32)
IMAGENET_STD = np.array([0.229, 0.224, 0.225], np.float32)


def frames(count: int, height: int = 48, width: int = 64, seed: int = 0) -> np.ndarray:
    """uint8 (count, height, width, 3): smooth random frames drifting over time, with a
    hard-edged block (so bicubic resizes overshoot)."""
    rng = np.random.default_rng(seed)
    coarse = rng.uniform(0, 255, (count + 1, 6, 8, 3))
    y = np.linspace(0, 5, height)[:, None]
    x = np.linspace(0, 7, width)[None, :]
    out = np.empty((count, height, width, 3), np.float64)
    for t in range(count):
        a = t / max(count, 1)
        grid = (1 - a) * coarse[t] + a * coarse[t + 1]
        yi, xi = np.floor(y).astype(int).clip(0, 4), np.floor(x).astype(int).clip(0, 6)
        fy, fx = (y - yi)[..., None], (x - xi)[..., None]
        out[t] = ((1 - fy) * (1 - fx) * grid[yi, xi] + (1 - fy) * fx * grid[yi, xi + 1]
                  + fy * (1 - fx) * grid[yi + 1, xi] + fy * fx * grid[yi + 1, xi + 1])
        out[t, height // 4: height // 2, width // 4 + t: width // 2 + t] = 255.0 * (t % 2)
    return np.clip(np.round(out), 0, 255).astype(np.uint8)


def video(rgb: np.ndarray, prompt: str = "", auxiliary=None) -> dimension.Video:
    return dimension.Video(rgb, 8.0, pathlib.Path("/videos/clip-0.mp4"), prompt, auxiliary)


def resized(rgb: np.ndarray, size: int, mode: str, antialias: bool = False) -> torch.Tensor:
    """Shorter side to `size` (longer one truncated) of float 0..255 frames, unclamped."""
    h, w = rgb.shape[1:3]
    out = (size, int(size * w / h)) if h <= w else (int(size * h / w), size)
    x = torch.from_numpy(rgb.astype(np.float32)).permute(0, 3, 1, 2)
    return F.interpolate(x, size=out, mode=mode, align_corners=False, antialias=antialias)


def center_crop(x: torch.Tensor, size: int) -> torch.Tensor:
    h, w = x.shape[-2:]
    top, left = int(round((h - size) / 2.0)), int(round((w - size) / 2.0))
    return x[..., top:top + size, left:left + size]


def normalised(x: torch.Tensor, mean: np.ndarray, std: np.ndarray) -> torch.Tensor:
    a = x.numpy() / np.float32(255.0)
    return torch.from_numpy((a - mean[:, None, None]) / std[:, None, None])


def clip_reference_pixels(rgb: np.ndarray, clamp: bool = False) -> torch.Tensor:
    """clip_transform(224) of load_video's float tensor (clamp=True: NOT upstream)."""
    x = resized(rgb, 224, "bicubic")
    if clamp:
        x = x.clamp(0, 255)
    return normalised(center_crop(x, 224), CLIP_MEAN, CLIP_STD)


def dino_reference_pixels(rgb: np.ndarray) -> torch.Tensor:
    """dino_transform(224) of load_video's float tensor: bilinear, no crop."""
    return normalised(resized(rgb, 224, "bilinear"), IMAGENET_MEAN, IMAGENET_STD)


def perturbed(model: torch.nn.Module, seed: int, std: float) -> torch.nn.Module:
    """Adds seeded N(0, std^2) noise to every parameter (features then differ per frame)."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for param in model.parameters():
            param.add_(std * torch.randn(param.shape, generator=generator))
    return model


def write_dino(path, seed: int = 3) -> None:
    """A random DINO ViT state dict (official key names) at TINY_DINO sizes."""
    torch.manual_seed(seed)
    torch.save(perturbed(vit.build_vit(TINY_DINO), seed, 0.1).state_dict(), str(path))


def write_clip_vision(folder, projection_dim: int, seed: int) -> None:
    """A tiny CLIPVisionModelWithProjection snapshot (QuickGELU), noise std 0.05 added."""
    torch.manual_seed(seed)
    model = perturbed(tiny_clip.write_vision_snapshot(folder, projection_dim, seed), seed, 0.05)
    model.save_pretrained(str(folder))


def write_linear_head(path, seed: int = 5, bias: float = 5.0) -> dict:
    """A random LAION v1 head state dict (nn.Linear(768, 1): weight, bias)."""
    head = {"weight": torch.randn(1, 768, generator=torch.Generator().manual_seed(seed)),
            "bias": torch.tensor([bias])}
    torch.save(head, str(path))
    return head


LOGIT_SCALE = math.log(50.0)  # not OpenAI's ~log(100): the frame value must follow it


def write_clip_full(folder, seed: int = 4) -> CLIPModel:
    """A tiny full CLIPModel snapshot whose text tower reads viclip_tiny's BPE ids (vocab
    TINY.vocab_size, 77 positions), QuickGELU, logit_scale LOGIT_SCALE."""
    torch.manual_seed(seed)
    text = CLIPTextConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                          num_attention_heads=4, vocab_size=viclip_tiny.TINY.vocab_size,
                          max_position_embeddings=77, hidden_act="quick_gelu")
    vision_dict = tiny_clip.tiny_vision_config().to_dict()
    vision_dict.pop("projection_dim")
    config = CLIPConfig(text_config=text.to_dict(), vision_config=vision_dict,
                        projection_dim=512, logit_scale_init_value=LOGIT_SCALE)
    model = perturbed(CLIPModel(config), seed, 0.05)
    with torch.no_grad():
        model.logit_scale.fill_(LOGIT_SCALE)
    model.eval().save_pretrained(str(folder))
    return model


def write_bpe(path) -> None:
    viclip_tiny.write_bpe(path)
