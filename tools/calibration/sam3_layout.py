"""The facebook/sam3 transformers snapshot's tensors in the official `sam3.pt` layout.

worldeval reads the Hugging Face conversion (model.safetensors, transformers' Sam3Model
names); the official `build_sam3_image_model` reads sam3.pt, whose keys are the
Sam3Image module names under "detector." (model_builder._load_checkpoint keeps the keys
containing "detector" and strips that prefix). `to_official_layout` renames our tensors
into that layout (written here from the two models' module trees, read at
facebookresearch/sam3 0.1.4 and transformers 5.18): q/k/v projections are fused back
into the ViT's `attn.qkv` and nn.MultiheadAttention's `in_proj_*`, the CLIP text
projection is transposed back, and the ViT position table gets back the class-token row
the official ViT drops before use (`retain_cls_token=False`; written as zeros here).

Official tensors with no counterpart in the snapshot (the official loader is
strict=False and keeps their constructor values): the ViT's RoPE tables
`attn.freqs_cis` (computed from the geometry in both implementations) and the geometry
encoder's `points_*` projections (point prompts; never used with a text prompt and an
empty box set).
"""

import re
from typing import Dict, Tuple

import torch

CHECKPOINT_PREFIX = "detector."
NOT_IN_SNAPSHOT = (r".*\.attn\.freqs_cis", r"geometry_encoder\.points_.*")
_VIT = "backbone.vision_backbone.trunk."
_TEXT = "backbone.language_backbone.encoder."
# (transformers name pattern, official name); the first full match wins.
_RULES: Tuple[Tuple[str, str], ...] = (
    (r"vision_encoder\.backbone\.embeddings\.position_embeddings", _VIT + "pos_embed"),
    (r"vision_encoder\.backbone\.embeddings\.patch_embeddings\.projection\.(.+)",
     _VIT + r"patch_embed.proj.\1"),
    (r"vision_encoder\.backbone\.layer_norm\.(.+)", _VIT + r"ln_pre.\1"),
    (r"vision_encoder\.backbone\.layers\.(\d+)\.layer_norm([12])\.(.+)",
     _VIT + r"blocks.\1.norm\2.\3"),
    (r"vision_encoder\.backbone\.layers\.(\d+)\.attention\.qkv\.(.+)",
     _VIT + r"blocks.\1.attn.qkv.\2"),
    (r"vision_encoder\.backbone\.layers\.(\d+)\.attention\.o_proj\.(.+)",
     _VIT + r"blocks.\1.attn.proj.\2"),
    (r"vision_encoder\.backbone\.layers\.(\d+)\.mlp\.(fc[12])\.(.+)",
     _VIT + r"blocks.\1.mlp.\2.\3"),
    (r"vision_encoder\.neck\.fpn_layers\.0\.scale_layers\.0\.(.+)",
     r"backbone.vision_backbone.convs.0.dconv_2x2_0.\1"),
    (r"vision_encoder\.neck\.fpn_layers\.0\.scale_layers\.2\.(.+)",
     r"backbone.vision_backbone.convs.0.dconv_2x2_1.\1"),
    (r"vision_encoder\.neck\.fpn_layers\.1\.scale_layers\.0\.(.+)",
     r"backbone.vision_backbone.convs.1.dconv_2x2.\1"),
    (r"vision_encoder\.neck\.fpn_layers\.(\d+)\.proj1\.(.+)",
     r"backbone.vision_backbone.convs.\1.conv_1x1.\2"),
    (r"vision_encoder\.neck\.fpn_layers\.(\d+)\.proj2\.(.+)",
     r"backbone.vision_backbone.convs.\1.conv_3x3.\2"),
    (r"text_encoder\.text_model\.embeddings\.token_embedding\.(.+)", _TEXT + r"token_embedding.\1"),
    (r"text_encoder\.text_model\.embeddings\.position_embedding\.weight",
     _TEXT + "positional_embedding"),
    (r"text_encoder\.text_model\.final_layer_norm\.(.+)", _TEXT + r"ln_final.\1"),
    (r"text_encoder\.text_projection\.weight", _TEXT + "text_projection"),
    (r"text_encoder\.text_model\.encoder\.layers\.(\d+)\.self_attn\.(in_proj_.+|out_proj\..+)",
     _TEXT + r"transformer.resblocks.\1.attn.\2"),
    (r"text_encoder\.text_model\.encoder\.layers\.(\d+)\.layer_norm([12])\.(.+)",
     _TEXT + r"transformer.resblocks.\1.ln_\2.\3"),
    (r"text_encoder\.text_model\.encoder\.layers\.(\d+)\.mlp\.fc1\.(.+)",
     _TEXT + r"transformer.resblocks.\1.mlp.c_fc.\2"),
    (r"text_encoder\.text_model\.encoder\.layers\.(\d+)\.mlp\.fc2\.(.+)",
     _TEXT + r"transformer.resblocks.\1.mlp.c_proj.\2"),
    (r"text_projection\.(.+)", r"backbone.language_backbone.resizer.\1"),
    # Geometry and DETR encoders share one layer layout (TransformerEncoderLayer).
    (r"geometry_encoder\.layers\.(\d+)\.(.+)", r"geometry_encoder.encode.\1.\2"),
    (r"geometry_encoder\.vision_layer_norm\.(.+)", r"geometry_encoder.img_pre_norm.\1"),
    (r"geometry_encoder\.prompt_layer_norm\.(.+)", r"geometry_encoder.norm.\1"),
    (r"geometry_encoder\.output_layer_norm\.(.+)", r"geometry_encoder.encode_norm.\1"),
    (r"detr_encoder\.layers\.(\d+)\.(.+)", r"transformer.encoder.layers.\1.\2"),
    (r"detr_decoder\.layers\.(\d+)\.(.+)", r"transformer.decoder.layers.\1.\2"),
    (r"detr_decoder\.presence_head\.layer(\d)\.(.+)",
     r"transformer.decoder.presence_token_head.layers.<\1>.\2"),
    (r"detr_decoder\.box_head\.layer(\d)\.(.+)", r"transformer.decoder.bbox_embed.layers.<\1>.\2"),
    (r"detr_decoder\.ref_point_head\.layer(\d)\.(.+)",
     r"transformer.decoder.ref_point_head.layers.<\1>.\2"),
    (r"detr_decoder\.box_rpb_embed_([xy])\.layer(\d)\.(.+)",
     r"transformer.decoder.boxRPB_embed_\1.layers.<\2>.\3"),
    (r"detr_decoder\.presence_layer_norm\.(.+)", r"transformer.decoder.presence_token_out_norm.\1"),
    (r"detr_decoder\.output_layer_norm\.(.+)", r"transformer.decoder.norm.\1"),
    (r"detr_decoder\.(.+)", r"transformer.decoder.\1"),
    (r"dot_product_scoring\.text_mlp\.layer(\d)\.(.+)",
     r"dot_prod_scoring.prompt_mlp.layers.<\1>.\2"),
    (r"dot_product_scoring\.text_mlp_out_norm\.(.+)", r"dot_prod_scoring.prompt_mlp.out_norm.\1"),
    (r"dot_product_scoring\.text_proj\.(.+)", r"dot_prod_scoring.prompt_proj.\1"),
    (r"dot_product_scoring\.query_proj\.(.+)", r"dot_prod_scoring.hs_proj.\1"),
    (r"mask_decoder\.mask_embedder\.(.+)", r"segmentation_head.mask_predictor.mask_embed.\1"),
    (r"mask_decoder\.instance_projection\.(.+)", r"segmentation_head.instance_seg_head.\1"),
    (r"mask_decoder\.semantic_projection\.(.+)", r"segmentation_head.semantic_seg_head.\1"),
    (r"mask_decoder\.prompt_cross_attn_norm\.(.+)", r"segmentation_head.cross_attn_norm.\1"),
    (r"mask_decoder\.prompt_cross_attn\.(.+)", r"segmentation_head.cross_attend_prompt.\1"),
    (r"mask_decoder\.(pixel_decoder\..+)", r"segmentation_head.\1"),
    (r"geometry_encoder\.(.+)", r"geometry_encoder.\1"),
)
# Inside encoder layers (geometry, DETR encoder) and decoder layers: the sub-module names.
_ENCODER_LAYER = (("cross_attn.", "cross_attn_image."), ("mlp.fc1.", "linear1."),
                  ("mlp.fc2.", "linear2."), ("layer_norm1.", "norm1."),
                  ("layer_norm2.", "norm2."), ("layer_norm3.", "norm3."))
_DECODER_LAYER = (("text_cross_attn_layer_norm.", "catext_norm."),
                  ("vision_cross_attn_layer_norm.", "norm1."), ("self_attn_layer_norm.", "norm2."),
                  ("mlp_layer_norm.", "norm3."), ("text_cross_attn.", "ca_text."),
                  ("vision_cross_attn.", "cross_attn."), ("mlp.fc1.", "linear1."),
                  ("mlp.fc2.", "linear2."))


def _fuse_projections(state: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
    """{q,k,v}_proj.{weight,bias} -> qkv.* (ViT) or in_proj_{weight,bias}; o_proj ->
    out_proj outside the ViT (nn.MultiheadAttention's name)."""
    out = {}
    for key, value in state.items():
        match = re.fullmatch(r"(.+)\.([qkv])_proj\.(weight|bias)", key)
        if match is None:
            vit = key.startswith("vision_encoder.backbone.")
            out[key if vit else key.replace(".o_proj.", ".out_proj.")] = value
            continue
        base, which, part = match.groups()
        if which != "q":
            continue
        fused = torch.cat([state[f"{base}.{n}_proj.{part}"] for n in "qkv"])
        vit = base.startswith("vision_encoder.backbone.")
        out[f"{base}.qkv.{part}" if vit else f"{base}.in_proj_{part}"] = fused
    return out


def official_name(key: str) -> str:
    """The official (Sam3Image) name of a transformers Sam3Model tensor name.

    Raises:
        ValueError: A name no rule maps.
    """
    for pattern, target in _RULES:
        if re.fullmatch(pattern, key):
            name = re.sub(pattern, target, key)
            name = re.sub(r"<(\d)>", lambda m: str(int(m.group(1)) - 1), name)  # 1-based -> 0
            break
    else:
        raise ValueError(f"no official name for {key}")
    layer = re.match(r"(geometry_encoder\.encode|transformer\.encoder\.layers|"
                     r"transformer\.decoder\.layers)\.\d+\.", name)
    if layer:
        renames = _DECODER_LAYER if "decoder" in layer.group(1) else _ENCODER_LAYER
        rest = name[layer.end():]
        for ours, theirs in renames:
            if rest.startswith(ours):
                rest = theirs + rest[len(ours):]
                break
        name = layer.group(0) + rest
    return name


def to_official_layout(state: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
    """transformers Sam3Model tensors -> sam3.pt's {"detector.<name>": tensor}."""
    out = {}
    for key, value in _fuse_projections(state).items():
        name = official_name(key)
        if name == _TEXT + "text_projection":
            value = value.t()
        elif name == _VIT + "pos_embed":
            value = torch.cat([value.new_zeros(1, 1, value.shape[-1]), value], dim=1)
        if CHECKPOINT_PREFIX + name in out:
            raise ValueError(f"two tensors map to {name}")
        out[CHECKPOINT_PREFIX + name] = value.contiguous()
    return out
