"""Seeded random FULL-SIZE weights of VBench's CLIP and DINO networks, in the official file
layouts and in the layout worldeval's loaders read (numpy only, so that the scratch run of
official_runs/vbench_clip_dino.py and the parity tests build the same tensors).

* OpenAI CLIP (`clip.load(path)` of openai/CLIP: ViT-B/32 for background_consistency and
  appearance_style, ViT-L/14 for aesthetic_quality): the state dict `clip.model.build_model`
  loads strictly (`visual.*`, `transformer.*`, `token_embedding.weight`, ...). Every value
  is float16-representable, as in OpenAI's released files: `build_model` casts the
  Linear/Conv/attention weights to float16 before loading, so other values would be
  rounded on the official side only.
* worldeval reads the Hugging Face CLIPModel conversion of those weights (what the
  openai/clip-vit-* repositories hold): `to_hf` renames them (fused attention in-projection
  split into q/k/v, `proj` and `text_projection` transposed into the projection Linears),
  `write_hf_snapshot` saves config.json and model.safetensors.
* DINO ViT-B/16 (`torch.hub.load("facebookresearch/dino:main", "dino_vitb16")`): the
  backbone state dict of dino_vitbase16_pretrain.pth, float32.
* LAION aesthetic-predictor v1 (sa_0_4_vit_l_14_linear.pth): nn.Linear(768, 1)'s
  {weight, bias}.

Each tensor is drawn from its own generator, seeded by (seed, crc32 of its name), so one
tower can be built without the other. Scales keep a deep random network in a sensible
range (matrices ~ N(0, 1/fan_in), LayerNorm gains 1 + N(0, 0.01), biases N(0, 4e-4),
embeddings N(0, 0.01)); `logit_scale` is near log(100) as in OpenAI's weights.
"""

import collections
import dataclasses
import hashlib
import json
import pathlib
import zlib
from typing import Dict, Sequence

import numpy as np

CLIP_SEED = 20261207
DINO_SEED = 20261208
HEAD_SEED = 20261209
_LAYER_NORM = ("ln_", "norm")


@dataclasses.dataclass(frozen=True)
class ClipSpec:
    """The sizes clip.model.build_model reads off an OpenAI ViT checkpoint."""

    name: str
    width: int
    layers: int
    patch: int
    embed: int
    text_width: int
    text_layers: int
    resolution: int = 224
    context: int = 77
    vocab: int = 49408


VIT_B32 = ClipSpec("ViT-B/32", width=768, layers=12, patch=32, embed=512, text_width=512,
                   text_layers=12)
VIT_L14 = ClipSpec("ViT-L/14", width=1024, layers=24, patch=14, embed=768, text_width=768,
                   text_layers=12)


def _blocks(prefix: str, width: int, layers: int) -> Dict[str, tuple]:
    shapes = {}
    for i in range(layers):
        p = f"{prefix}resblocks.{i}."
        shapes.update({
            p + "attn.in_proj_weight": (3 * width, width), p + "attn.in_proj_bias": (3 * width,),
            p + "attn.out_proj.weight": (width, width), p + "attn.out_proj.bias": (width,),
            p + "ln_1.weight": (width,), p + "ln_1.bias": (width,),
            p + "mlp.c_fc.weight": (4 * width, width), p + "mlp.c_fc.bias": (4 * width,),
            p + "mlp.c_proj.weight": (width, 4 * width), p + "mlp.c_proj.bias": (width,),
            p + "ln_2.weight": (width,), p + "ln_2.bias": (width,)})
    return shapes


def clip_shapes(spec: ClipSpec, towers: Sequence[str] = ("visual", "text")) -> Dict[str, tuple]:
    """The OpenAI state dict's names and shapes (the official load checks them strictly)."""
    shapes = {}
    if "visual" in towers:
        w, grid = spec.width, spec.resolution // spec.patch
        shapes.update({"visual.class_embedding": (w,),
                       "visual.positional_embedding": (grid * grid + 1, w),
                       "visual.proj": (w, spec.embed),
                       "visual.conv1.weight": (w, 3, spec.patch, spec.patch),
                       "visual.ln_pre.weight": (w,), "visual.ln_pre.bias": (w,)})
        shapes.update(_blocks("visual.transformer.", w, spec.layers))
        shapes.update({"visual.ln_post.weight": (w,), "visual.ln_post.bias": (w,)})
    if "text" in towers:
        t = spec.text_width
        shapes.update({"positional_embedding": (spec.context, t),
                       "text_projection": (t, spec.embed), "logit_scale": (),
                       "token_embedding.weight": (spec.vocab, t)})
        shapes.update(_blocks("transformer.", t, spec.text_layers))
        shapes.update({"ln_final.weight": (t,), "ln_final.bias": (t,)})
    return shapes


def dino_shapes(width: int = 768, depth: int = 12, patch: int = 16, size: int = 224
                ) -> Dict[str, tuple]:
    """dino_vitbase16_pretrain.pth's names and shapes (the hub loads it strictly)."""
    grid = size // patch
    shapes = {"cls_token": (1, 1, width), "pos_embed": (1, grid * grid + 1, width),
              "patch_embed.proj.weight": (width, 3, patch, patch),
              "patch_embed.proj.bias": (width,)}
    for i in range(depth):
        p = f"blocks.{i}."
        shapes.update({
            p + "norm1.weight": (width,), p + "norm1.bias": (width,),
            p + "attn.qkv.weight": (3 * width, width), p + "attn.qkv.bias": (3 * width,),
            p + "attn.proj.weight": (width, width), p + "attn.proj.bias": (width,),
            p + "norm2.weight": (width,), p + "norm2.bias": (width,),
            p + "mlp.fc1.weight": (4 * width, width), p + "mlp.fc1.bias": (4 * width,),
            p + "mlp.fc2.weight": (width, 4 * width), p + "mlp.fc2.bias": (width,)})
    shapes.update({"norm.weight": (width,), "norm.bias": (width,)})
    return shapes


def seeded(name: str, shape: tuple, seed: int) -> np.ndarray:
    """The float32 tensor `name` of the seeded weights (module docstring for the scales)."""
    rng = np.random.default_rng([seed, zlib.crc32(name.encode())])
    noise = rng.standard_normal(shape, dtype=np.float32)
    leaf = name.rsplit(".", 1)[-1]
    if name == "logit_scale":
        return np.asarray(np.log(100.0) + 0.01 * noise, dtype=np.float32)
    if leaf in ("bias", "in_proj_bias"):
        return 0.02 * noise
    if len(shape) == 1 and any(m in name for m in _LAYER_NORM):
        return 1.0 + 0.1 * noise
    if "embedding" in name or name in ("cls_token", "pos_embed"):
        return 0.1 * noise
    # OpenAI keeps its projections as (in, out); every other matrix is (out, in, ...).
    fan_in = shape[0] if name in ("visual.proj", "text_projection") else int(np.prod(shape[1:]))
    return noise / np.float32(np.sqrt(fan_in))


def clip_state(spec: ClipSpec, towers=("visual", "text"), seed: int = CLIP_SEED
               ) -> Dict[str, np.ndarray]:
    """The OpenAI-layout weights, float16-representable values held as float32."""
    return collections.OrderedDict(
        (k, seeded(k, s, seed).astype(np.float16).astype(np.float32))
        for k, s in clip_shapes(spec, towers).items())


def dino_state(seed: int = DINO_SEED) -> Dict[str, np.ndarray]:
    return collections.OrderedDict((k, seeded(k, s, seed)) for k, s in dino_shapes().items())


def head_state(seed: int = HEAD_SEED) -> Dict[str, np.ndarray]:
    """nn.Linear(768, 1): weight N(0, 1) (so scores spread ~1), bias N(0, 4e-4)."""
    rng = np.random.default_rng(seed)
    return collections.OrderedDict(
        weight=rng.standard_normal((1, 768), dtype=np.float32),
        bias=0.02 * rng.standard_normal((1,), dtype=np.float32))


def fingerprint(state: Dict[str, np.ndarray]) -> str:
    """sha256 of every name, shape and every 997th value (cheap; stale-record check)."""
    digest = hashlib.sha256()
    for name, value in state.items():
        digest.update(f"{name}{value.shape}".encode())
        digest.update(np.ascontiguousarray(value.ravel()[::997]).tobytes())
    return digest.hexdigest()


def _split_attention(hf: dict, src: str, dst: str, state: dict) -> None:
    for part, key in (("weight", "in_proj_weight"), ("bias", "in_proj_bias")):
        for name, chunk in zip("qkv", np.split(state[src + "attn." + key], 3, axis=0)):
            hf[f"{dst}self_attn.{name}_proj.{part}"] = chunk
    renames = (("self_attn.out_proj", "attn.out_proj"), ("layer_norm1", "ln_1"),
               ("mlp.fc1", "mlp.c_fc"), ("mlp.fc2", "mlp.c_proj"), ("layer_norm2", "ln_2"))
    for ours, theirs in renames:
        for part in ("weight", "bias"):
            hf[f"{dst}{ours}.{part}"] = state[f"{src}{theirs}.{part}"]


def to_hf(state: Dict[str, np.ndarray], spec: ClipSpec) -> Dict[str, np.ndarray]:
    """The OpenAI tensors of `state` (either or both towers) in transformers' CLIPModel
    layout (the openai/clip-vit-* conversion)."""
    hf = {}
    if "visual.proj" in state:
        hf.update({
            "vision_model.embeddings.class_embedding": state["visual.class_embedding"],
            "vision_model.embeddings.patch_embedding.weight": state["visual.conv1.weight"],
            "vision_model.embeddings.position_embedding.weight":
                state["visual.positional_embedding"],
            "visual_projection.weight": state["visual.proj"].T,
            "vision_model.pre_layrnorm.weight": state["visual.ln_pre.weight"],
            "vision_model.pre_layrnorm.bias": state["visual.ln_pre.bias"],
            "vision_model.post_layernorm.weight": state["visual.ln_post.weight"],
            "vision_model.post_layernorm.bias": state["visual.ln_post.bias"]})
        for i in range(spec.layers):
            _split_attention(hf, f"visual.transformer.resblocks.{i}.",
                             f"vision_model.encoder.layers.{i}.", state)
    if "text_projection" in state:
        hf.update({
            "text_model.embeddings.token_embedding.weight": state["token_embedding.weight"],
            "text_model.embeddings.position_embedding.weight": state["positional_embedding"],
            "text_model.final_layer_norm.weight": state["ln_final.weight"],
            "text_model.final_layer_norm.bias": state["ln_final.bias"],
            "text_projection.weight": state["text_projection"].T,
            "logit_scale": state["logit_scale"]})
        for i in range(spec.text_layers):
            _split_attention(hf, f"transformer.resblocks.{i}.",
                             f"text_model.encoder.layers.{i}.", state)
    return {k: np.ascontiguousarray(v) for k, v in hf.items()}


def hf_config(spec: ClipSpec) -> dict:
    """config.json of the openai/clip-vit-* snapshot of `spec` (QuickGELU, eps 1e-5, heads
    of 64 channels, as OpenAI's CLIP)."""
    def tower(width, layers):
        return dict(hidden_size=width, intermediate_size=4 * width, num_hidden_layers=layers,
                    num_attention_heads=width // 64, hidden_act="quick_gelu",
                    layer_norm_eps=1e-5)
    return dict(model_type="clip", projection_dim=spec.embed,
                vision_config=dict(tower(spec.width, spec.layers), image_size=spec.resolution,
                                   patch_size=spec.patch),
                text_config=dict(tower(spec.text_width, spec.text_layers),
                                 vocab_size=spec.vocab, max_position_embeddings=spec.context))


def write_hf_snapshot(folder, spec: ClipSpec, state: Dict[str, np.ndarray]) -> pathlib.Path:
    """config.json + model.safetensors of `state`'s conversion (clip_state's towers)."""
    # pylint: disable=import-outside-toplevel  (the scratch run needs numpy only)
    from safetensors.numpy import save_file
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(hf_config(spec)), encoding="utf-8")
    save_file(to_hf(state, spec), str(folder / "model.safetensors"), metadata={"format": "pt"})
    return folder
