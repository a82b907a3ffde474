"""Tiny open_clip models of the official architectures, and their Hugging Face twin.

The official MemoBench code builds `open_clip.create_model_and_transforms("ViT-L-14" or
"ViT-B-32", pretrained="openai")`. worldeval loads the Hugging Face conversion of the
same OpenAI weights (openai/clip-vit-*: a transformers CLIPModel in model.safetensors).
To compare the two implementations on identical weights:

1. `register_tiny` writes an open_clip model config that is the official one
   (`open_clip.get_model_config(arch)`: image size, patch size, every flag, the
   absence of `quick_gelu`) with the widths, depths and text tower shrunk, and
   registers it with open_clip;
2. `write_open_clip_checkpoint` builds that model with open_clip's own factory, moves
   every parameter by seeded noise (so no LayerNorm is the identity and no bias zero)
   and saves its state dict as open_clip saves checkpoints (safetensors);
3. `write_hf_snapshot` converts those tensors into the Hugging Face CLIPModel layout
   (the conversion the openai/clip-vit-* repos were made with: the fused attention
   in-projection split into q/k/v, `proj` transposed into `visual_projection`, ...),
   the text tower left random, and saves config.json + model.safetensors as
   `save_pretrained` does.
"""

import json
import pathlib
from typing import Dict

import open_clip
from safetensors.torch import save_file
import torch
from transformers import CLIPConfig
from transformers import CLIPModel

TINY_WIDTH = 128
TINY_LAYERS = 2
_TEXT = {"context_length": 77, "vocab_size": 64, "width": 64, "heads": 1, "layers": 1}


def tiny_name(arch: str) -> str:
    return f"worldeval-tiny-{arch}"


def register_tiny(arch: str, folder: pathlib.Path, embed_dim=None) -> dict:
    """Registers tiny_name(arch) with open_clip; returns its config."""
    config = json.loads(json.dumps(open_clip.get_model_config(arch)))
    if config is None:
        raise ValueError(f"open_clip has no model config {arch!r}")
    config["vision_cfg"].update(width=TINY_WIDTH, layers=TINY_LAYERS)
    config["text_cfg"].update(_TEXT)
    if embed_dim is not None:
        config["embed_dim"] = embed_dim
    path = pathlib.Path(folder) / f"{tiny_name(arch)}.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    open_clip.add_model_config(path)
    return config


def write_open_clip_checkpoint(arch: str, path: pathlib.Path, seed: int) -> Dict[str, torch.Tensor]:
    """Random weights of tiny_name(arch), saved at `path` (.safetensors); returns them."""
    torch.manual_seed(seed)
    model = open_clip.create_model(tiny_name(arch))
    generator = torch.Generator().manual_seed(seed)
    state = {}
    for key, value in model.state_dict().items():
        noise = torch.randn(value.shape, generator=generator) * 0.02
        state[key] = (value + noise).contiguous() if value.is_floating_point() else value
    save_file(state, str(path))
    return state


def _split_in_proj(tensor: torch.Tensor):
    return torch.chunk(tensor, 3, dim=0)


def to_hf_vision(state: Dict[str, torch.Tensor], layers: int) -> Dict[str, torch.Tensor]:
    """open_clip `visual.*` tensors renamed into transformers' CLIP vision layout."""
    hf = {
        "vision_model.embeddings.class_embedding": state["visual.class_embedding"],
        "vision_model.embeddings.patch_embedding.weight": state["visual.conv1.weight"],
        "vision_model.embeddings.position_embedding.weight":
            state["visual.positional_embedding"],
        "visual_projection.weight": state["visual.proj"].t().contiguous(),
    }
    for ours, theirs in (("pre_layrnorm", "ln_pre"), ("post_layernorm", "ln_post")):
        for part in ("weight", "bias"):
            hf[f"vision_model.{ours}.{part}"] = state[f"visual.{theirs}.{part}"]
    renames = (("layer_norm1", "ln_1"), ("layer_norm2", "ln_2"), ("mlp.fc1", "mlp.c_fc"),
               ("mlp.fc2", "mlp.c_proj"), ("self_attn.out_proj", "attn.out_proj"))
    for i in range(layers):
        src, dst = f"visual.transformer.resblocks.{i}.", f"vision_model.encoder.layers.{i}."
        for ours, theirs in renames:
            for part in ("weight", "bias"):
                hf[f"{dst}{ours}.{part}"] = state[f"{src}{theirs}.{part}"]
        for part in ("weight", "bias"):
            for name, chunk in zip("qkv", _split_in_proj(state[f"{src}attn.in_proj_{part}"])):
                hf[f"{dst}self_attn.{name}_proj.{part}"] = chunk.contiguous()
    return hf


def hf_config(config: dict) -> CLIPConfig:
    """The transformers CLIPConfig of an open_clip config (OpenAI's own hyperparameters:
    heads of 64 channels, MLP ratio 4, LayerNorm eps 1e-5, QuickGELU as in the hub's
    config.json)."""
    vision, text = config["vision_cfg"], config["text_cfg"]
    return CLIPConfig(
        projection_dim=config["embed_dim"],
        vision_config=dict(hidden_size=vision["width"], intermediate_size=4 * vision["width"],
                           num_hidden_layers=vision["layers"],
                           num_attention_heads=vision["width"] // 64,
                           image_size=vision["image_size"], patch_size=vision["patch_size"],
                           hidden_act="quick_gelu", layer_norm_eps=1e-5),
        text_config=dict(hidden_size=text["width"], intermediate_size=4 * text["width"],
                         num_hidden_layers=text["layers"], num_attention_heads=text["heads"],
                         vocab_size=text["vocab_size"],
                         max_position_embeddings=text["context_length"],
                         hidden_act="quick_gelu", layer_norm_eps=1e-5))


def write_hf_snapshot(config: dict, state: Dict[str, torch.Tensor],
                      folder: pathlib.Path) -> pathlib.Path:
    """A CLIPModel snapshot folder whose vision tower holds `state`'s visual tensors.

    Raises:
        ValueError: A vision tensor of the CLIPModel layout got no value, or a shape differs.
    """
    torch.manual_seed(0)
    model = CLIPModel(hf_config(config))
    target = model.state_dict()
    vision = to_hf_vision(state, config["vision_cfg"]["layers"])
    expected = {k for k in target if k.startswith(("vision_model.", "visual_projection."))
                and not k.endswith("position_ids")}
    if set(vision) != expected:
        raise ValueError(f"conversion mismatch: missing {sorted(expected - set(vision))}, "
                         f"extra {sorted(set(vision) - expected)}")
    for key, value in vision.items():
        if tuple(value.shape) != tuple(target[key].shape):
            raise ValueError(f"{key}: {tuple(value.shape)} vs {tuple(target[key].shape)}")
    model.load_state_dict(vision, strict=False)
    folder = pathlib.Path(folder)
    model.save_pretrained(str(folder))
    return folder
