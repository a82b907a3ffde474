"""Test helper: tiny random CLIP snapshots and aesthetic heads laid out like the real files.

The towers are the real transformers CLIP architecture (CLIPVisionModelWithProjection
or a full CLIPModel) with small widths and depths, saved with `save_pretrained`
(config.json + model.safetensors), so they load through the same code as
openai/clip-vit-*. The head is saved as the improved-aesthetic-predictor file
is: a state dict keyed `layers.N.weight/bias`.
"""

import collections
import dataclasses
import pathlib

import numpy as np
import torch
from transformers import CLIPConfig
from transformers import CLIPModel
from transformers import CLIPTextConfig
from transformers import CLIPVisionConfig
from transformers import CLIPVisionModelWithProjection

from metrics.clip import aesthetic
from metrics.clip import reference_transform
from metrics.clip import vision

# Official head layout: nn.Sequential indices of the five Linear layers.
HEAD_LINEAR_INDICES = (0, 2, 4, 6, 7)


def tiny_vision_config(projection_dim=768, hidden_act="quick_gelu", image_size=224,
                       patch_size=32) -> CLIPVisionConfig:
    """A 2-layer, 32-wide CLIP vision config (224 input, 7x7 patches by default)."""
    return CLIPVisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                            num_attention_heads=4, image_size=image_size,
                            patch_size=patch_size, projection_dim=projection_dim,
                            hidden_act=hidden_act)


def write_vision_snapshot(folder, projection_dim=768, seed=0) -> CLIPVisionModelWithProjection:
    """Saves a random CLIPVisionModelWithProjection snapshot; returns the model (eval)."""
    torch.manual_seed(seed)
    model = CLIPVisionModelWithProjection(tiny_vision_config(projection_dim)).eval()
    model.save_pretrained(str(folder))
    return model


def write_clip_snapshot(folder, projection_dim=768, seed=0) -> CLIPModel:
    """Saves a random full CLIPModel (text + vision) snapshot; returns the model (eval).

    Only the top-level projection_dim is set, as in openai/clip-vit-*'s config:
    the vision sub-config keeps its default (512).
    """
    torch.manual_seed(seed)
    text = CLIPTextConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                          num_attention_heads=4, vocab_size=99, max_position_embeddings=16)
    vision_dict = tiny_vision_config().to_dict()
    vision_dict.pop("projection_dim")
    config = CLIPConfig(text_config=text.to_dict(), vision_config=vision_dict,
                        projection_dim=projection_dim)
    model = CLIPModel(config).eval()
    model.save_pretrained(str(folder))
    return model


def random_head_state(seed=0) -> collections.OrderedDict:
    """A random head state dict with the official `layers.N.*` keys.

    Weights are N(0, 4 / fan_in), so that (the head being affine) the output
    keeps the spread of its inputs instead of shrinking it ~3x per layer as the
    default initialisation does: different frames get visibly different scores.
    """
    generator = torch.Generator().manual_seed(seed)
    head = aesthetic.build_head()
    state = collections.OrderedDict()
    for index in HEAD_LINEAR_INDICES:
        out_features, in_features = head[index].weight.shape
        state[f"layers.{index}.weight"] = (
            torch.randn(out_features, in_features, generator=generator) * 2 / in_features ** 0.5)
        state[f"layers.{index}.bias"] = torch.randn(out_features, generator=generator) * 0.1
    return state


def write_head(path, seed=0) -> collections.OrderedDict:
    """Saves random_head_state(seed) to `path` (parents created); returns the state."""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    state = random_head_state(seed)
    torch.save(state, path)
    return state


def head_numpy(state, features: np.ndarray) -> np.ndarray:
    """The head (eval mode: dropout is identity) in float64 numpy: (N, 768) -> (N,)."""
    x = np.asarray(features, dtype=np.float64)
    for index in HEAD_LINEAR_INDICES:
        weight = state[f"layers.{index}.weight"].double().numpy()
        bias = state[f"layers.{index}.bias"].double().numpy()
        x = x @ weight.T + bias
    return x[:, 0]


class _MeanColour(torch.nn.Module):
    """A stand-in tower: the embedding is the image's mean normalised colour."""

    @dataclasses.dataclass
    class Output:
        image_embeds: torch.Tensor

    def forward(self, pixel_values):
        return self.Output(pixel_values.mean(dim=(2, 3)))


def mean_colour_tower() -> vision.ClipVision:
    """A ClipVision whose embedding of an image is its mean normalised colour (CPU)."""
    return vision.ClipVision(_MeanColour(), torch.device("cpu"), 224, "gelu")


def flat_frame(bgr) -> np.ndarray:
    """A 32x32 uint8 frame of one BGR colour."""
    return np.full((32, 32, 3), bgr, np.uint8)


def reference_embedding(model, frame) -> np.ndarray:
    """The unit embedding of one BGR frame by an in-memory tower, on PIL/numpy pixels."""
    pixels = torch.from_numpy(reference_transform.reference_pixels(frame))[None]
    with torch.no_grad():
        feature = model(pixel_values=pixels).image_embeds.float()[0]
    return (feature / feature.norm()).numpy()
