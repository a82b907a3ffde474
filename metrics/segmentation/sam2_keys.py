"""Official SAM 2 checkpoint keys <-> transformers Sam2VideoModel / Sam2Model names.

The official `sam2.1_hiera_*.pt` holds `{"model": SAM2Base.state_dict()}` (keys such as
`image_encoder.trunk.blocks.0.attn.qkv.weight`, `sam_mask_decoder.transformer...`,
`memory_encoder.fuser.layers.0.gamma`). transformers 5.18's Sam2VideoModel holds the
same tensors under its own names; the image model Sam2Model uses a subset of them.
Written from the two architectures (official `sam2/modeling`, transformers
`models/sam2`, `models/sam2_video`). Every tensor is copied unchanged, except:
  * `sam_prompt_encoder.point_embeddings.{0..3}.weight` (four (1, C)) are stacked into
    `prompt_encoder.point_embed.weight` (4, C);
  * `sam_prompt_encoder.pe_layer.positional_encoding_gaussian_matrix` feeds both
    `prompt_encoder.shared_embedding.positional_embedding` and the top-level
    `shared_image_embedding.positional_embedding` (one tensor in the official model).
An official multi-layer MLP (`layers.0 .. layers.L-1`) becomes transformers'
`proj_in`, `layers.0 .. layers.L-3`, `proj_out`.
"""

import re
from typing import Dict, List, Tuple

import torch

_POINT_EMBEDDINGS = 4
_GAUSSIAN = "sam_prompt_encoder.pe_layer.positional_encoding_gaussian_matrix"
_GAUSSIAN_HF = ("prompt_encoder.shared_embedding.positional_embedding",
                "shared_image_embedding.positional_embedding")


def _mlp3(official: str, hf: str) -> List[Tuple[str, str]]:
    return [(f"{official}.layers.0.{{p}}", f"{hf}.proj_in.{{p}}"),
            (f"{official}.layers.1.{{p}}", f"{hf}.layers.0.{{p}}"),
            (f"{official}.layers.2.{{p}}", f"{hf}.proj_out.{{p}}")]


def _attention(official: str, hf: str) -> List[Tuple[str, str]]:
    return [(f"{official}.{{q}}_proj.{{p}}", f"{hf}.{{q}}_proj.{{p}}"),
            (f"{official}.out_proj.{{p}}", f"{hf}.o_proj.{{p}}")]


_T, _HT = "image_encoder.trunk", "vision_encoder.backbone"
_D, _HD = "sam_mask_decoder", "mask_decoder"
_DL, _HDL = f"{_D}.transformer.layers.{{i}}", f"{_HD}.transformer.layers.{{i}}"
_ML, _HML = "memory_attention.layers.{i}", "memory_attention.layers.{i}"
_MD, _HMD = "memory_encoder.mask_downsampler.encoder", "memory_encoder.mask_downsampler"
_F, _HF = "memory_encoder.fuser.layers.{i}", "memory_encoder.memory_fuser.layers.{i}"
_PE, _HPE = "sam_prompt_encoder", "prompt_encoder"

# (official template, transformers template); {i} an index, {q} q|k|v, {p} a tensor name.
RULES: List[Tuple[str, str]] = [
    ("maskmem_tpos_enc", "memory_temporal_positional_encoding"),
    ("no_mem_embed", "no_memory_embedding"),
    ("no_mem_pos_enc", "no_memory_positional_encoding"),
    ("no_obj_ptr", "no_object_pointer"),
    ("no_obj_embed_spatial", "occlusion_spatial_embedding_parameter"),
    ("mask_downsample.{p}", "mask_downsample.{p}"),
    (f"{_T}.pos_embed", f"{_HT}.pos_embed"),
    (f"{_T}.pos_embed_window", f"{_HT}.pos_embed_window"),
    (f"{_T}.patch_embed.proj.{{p}}", f"{_HT}.patch_embed.projection.{{p}}"),
    (f"{_T}.blocks.{{i}}.norm1.{{p}}", f"{_HT}.blocks.{{i}}.layer_norm1.{{p}}"),
    (f"{_T}.blocks.{{i}}.norm2.{{p}}", f"{_HT}.blocks.{{i}}.layer_norm2.{{p}}"),
    (f"{_T}.blocks.{{i}}.attn.qkv.{{p}}", f"{_HT}.blocks.{{i}}.attn.qkv.{{p}}"),
    (f"{_T}.blocks.{{i}}.attn.proj.{{p}}", f"{_HT}.blocks.{{i}}.attn.proj.{{p}}"),
    (f"{_T}.blocks.{{i}}.proj.{{p}}", f"{_HT}.blocks.{{i}}.proj.{{p}}"),
    (f"{_T}.blocks.{{i}}.mlp.layers.0.{{p}}", f"{_HT}.blocks.{{i}}.mlp.proj_in.{{p}}"),
    (f"{_T}.blocks.{{i}}.mlp.layers.1.{{p}}", f"{_HT}.blocks.{{i}}.mlp.proj_out.{{p}}"),
    ("image_encoder.neck.convs.{i}.conv.{p}", "vision_encoder.neck.convs.{i}.{p}"),
    # prompt encoder (point_embeddings and pe_layer: special cases, see the docstring)
    (f"{_PE}.not_a_point_embed.{{p}}", f"{_HPE}.not_a_point_embed.{{p}}"),
    (f"{_PE}.no_mask_embed.{{p}}", f"{_HPE}.no_mask_embed.{{p}}"),
    (f"{_PE}.mask_downscaling.0.{{p}}", f"{_HPE}.mask_embed.conv1.{{p}}"),
    (f"{_PE}.mask_downscaling.1.{{p}}", f"{_HPE}.mask_embed.layer_norm1.{{p}}"),
    (f"{_PE}.mask_downscaling.3.{{p}}", f"{_HPE}.mask_embed.conv2.{{p}}"),
    (f"{_PE}.mask_downscaling.4.{{p}}", f"{_HPE}.mask_embed.layer_norm2.{{p}}"),
    (f"{_PE}.mask_downscaling.6.{{p}}", f"{_HPE}.mask_embed.conv3.{{p}}"),
    # mask decoder
    *_attention(f"{_DL}.self_attn", f"{_HDL}.self_attn"),
    *_attention(f"{_DL}.cross_attn_token_to_image", f"{_HDL}.cross_attn_token_to_image"),
    *_attention(f"{_DL}.cross_attn_image_to_token", f"{_HDL}.cross_attn_image_to_token"),
    *_attention(f"{_D}.transformer.final_attn_token_to_image",
                f"{_HD}.transformer.final_attn_token_to_image"),
    (f"{_DL}.norm{{i2}}.{{p}}", f"{_HDL}.layer_norm{{i2}}.{{p}}"),
    (f"{_DL}.mlp.layers.0.{{p}}", f"{_HDL}.mlp.proj_in.{{p}}"),
    (f"{_DL}.mlp.layers.1.{{p}}", f"{_HDL}.mlp.proj_out.{{p}}"),
    (f"{_D}.transformer.norm_final_attn.{{p}}", f"{_HD}.transformer.layer_norm_final_attn.{{p}}"),
    (f"{_D}.iou_token.{{p}}", f"{_HD}.iou_token.{{p}}"),
    (f"{_D}.mask_tokens.{{p}}", f"{_HD}.mask_tokens.{{p}}"),
    (f"{_D}.obj_score_token.{{p}}", f"{_HD}.obj_score_token.{{p}}"),
    (f"{_D}.conv_s0.{{p}}", f"{_HD}.conv_s0.{{p}}"),
    (f"{_D}.conv_s1.{{p}}", f"{_HD}.conv_s1.{{p}}"),
    (f"{_D}.output_upscaling.0.{{p}}", f"{_HD}.upscale_conv1.{{p}}"),
    (f"{_D}.output_upscaling.1.{{p}}", f"{_HD}.upscale_layer_norm.{{p}}"),
    (f"{_D}.output_upscaling.3.{{p}}", f"{_HD}.upscale_conv2.{{p}}"),
    *_mlp3(f"{_D}.output_hypernetworks_mlps.{{i}}", f"{_HD}.output_hypernetworks_mlps.{{i}}"),
    *_mlp3(f"{_D}.iou_prediction_head", f"{_HD}.iou_prediction_head"),
    *_mlp3(f"{_D}.pred_obj_score_head", f"{_HD}.pred_obj_score_head"),
    # memory attention
    *_attention(f"{_ML}.self_attn", f"{_HML}.self_attn"),
    *_attention(f"{_ML}.cross_attn_image", f"{_HML}.cross_attn_image"),
    (f"{_ML}.linear1.{{p}}", f"{_HML}.linear1.{{p}}"),
    (f"{_ML}.linear2.{{p}}", f"{_HML}.linear2.{{p}}"),
    (f"{_ML}.norm{{i2}}.{{p}}", f"{_HML}.layer_norm{{i2}}.{{p}}"),
    ("memory_attention.norm.{p}", "memory_attention.layer_norm.{p}"),
    # memory encoder: Sequential(conv, LayerNorm2d, GELU) x 4, then a 1x1 conv (index 12)
    *[(f"{_MD}.{3 * k}.{{p}}", f"{_HMD}.layers.{k}.conv.{{p}}") for k in range(4)],
    *[(f"{_MD}.{3 * k + 1}.{{p}}", f"{_HMD}.layers.{k}.layer_norm.{{p}}") for k in range(4)],
    (f"{_MD}.12.{{p}}", f"{_HMD}.final_conv.{{p}}"),
    ("memory_encoder.pix_feat_proj.{p}", "memory_encoder.feature_projection.{p}"),
    ("memory_encoder.out_proj.{p}", "memory_encoder.projection.{p}"),
    (f"{_F}.gamma", f"{_HF}.scale"),
    (f"{_F}.dwconv.{{p}}", f"{_HF}.depthwise_conv.{{p}}"),
    (f"{_F}.norm.{{p}}", f"{_HF}.layer_norm.{{p}}"),
    (f"{_F}.pwconv1.{{p}}", f"{_HF}.pointwise_conv1.{{p}}"),
    (f"{_F}.pwconv2.{{p}}", f"{_HF}.pointwise_conv2.{{p}}"),
    # object pointers
    *_mlp3("obj_ptr_proj", "object_pointer_proj"),
    ("obj_ptr_tpos_proj.{p}", "temporal_positional_encoding_projection_layer.{p}"),
]

_FIELDS = {"i": r"(?P<i>\d+)", "i2": r"(?P<i2>[1-4])", "q": r"(?P<q>[qkv])",
           "p": r"(?P<p>weight|bias)"}


def _compile(template: str) -> "re.Pattern[str]":
    pattern = re.escape(template)
    for name, group in _FIELDS.items():
        pattern = pattern.replace(re.escape("{" + name + "}"), group)
    return re.compile(pattern + "$")


_FORWARD = [(_compile(o), h) for o, h in RULES]
_BACKWARD = [(_compile(h), o) for o, h in RULES]


def _rename(key: str, table) -> str:
    for pattern, template in table:
        match = pattern.match(key)
        if match:
            return template.format(**match.groupdict())
    raise KeyError(key)


def to_transformers(state: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
    """The official SAM2Base state dict renamed for transformers' Sam2VideoModel.

    Raises:
        ValueError: A key that no rule knows, or a point embedding missing.
    """
    out, unknown = {}, []
    points = [state.get(f"{_PE}.point_embeddings.{k}.weight") for k in range(_POINT_EMBEDDINGS)]
    for key, tensor in state.items():
        if key.startswith(f"{_PE}.point_embeddings."):
            continue
        if key == _GAUSSIAN:
            for name in _GAUSSIAN_HF:
                out[name] = tensor
            continue
        try:
            out[_rename(key, _FORWARD)] = tensor
        except KeyError:
            unknown.append(key)
    if unknown:
        raise ValueError(f"{len(unknown)} official SAM 2 keys have no transformers name, "
                         f"e.g. {unknown[:5]}")
    if any(p is None for p in points):
        raise ValueError(f"the checkpoint lacks {_PE}.point_embeddings.0-3")
    out[f"{_HPE}.point_embed.weight"] = torch.cat(points, dim=0)
    return out


def to_official(state: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
    """transformers Sam2VideoModel tensors under the official names (the inverse)."""
    out = {}
    for key, tensor in state.items():
        if key == f"{_HPE}.point_embed.weight":
            for k in range(_POINT_EMBEDDINGS):
                out[f"{_PE}.point_embeddings.{k}.weight"] = tensor[k:k + 1].clone()
        elif key in _GAUSSIAN_HF:
            out[_GAUSSIAN] = tensor
        else:
            out[_rename(key, _BACKWARD)] = tensor
    return out
