"""The official GroundingDINO checkpoint's tensors under transformers' names, and back.

The IDEA-Research file (`torch.load(path)["model"]`, e.g. `groundingdino_swinb_cogcoor.pth`)
keeps the module names of the official `GroundingDINO` model: `backbone.0.*` (Swin),
`bert.*` (the text encoder, pooler included), `feat_map`, `input_proj.*`,
`transformer.{encoder,decoder}.*`, `bbox_embed.*`. transformers'
`GroundingDinoForObjectDetection` names the same parameters differently, and splits the
fused projections: Swin's `attn.qkv` (rows q, k, v) into `q_proj`/`k_proj`/`v_proj`, and
each `nn.MultiheadAttention` `in_proj_weight`/`in_proj_bias` (rows q, k, v) into
`query`/`key`/`value`. The rename table below was written from the two architectures
(the official modules' forward order of norm1/norm2/norm3/catext_norm against
transformers' layer norms) and is checked three ways: every transformers tensor is
produced with its shape from the full-size official key list
(grounding_dino_keys_test), the round trip is the identity, and the converted random
model computes the official model's outputs (tools/calibration/grounding_dino_parity).

Dropped official tensors: Swin's `relative_position_index` (a buffer both models
compute from the window size), `bert.pooler.*` (the official wrapper never uses the
pooled output; transformers builds BERT without a pooler), and two tensors the
released groundingdino_swinb_cogcoor.pth holds that the official model does not have
(its strict=False load reports exactly these as unexpected, IDEA-Research/GroundingDINO
issue 271): `bert.embeddings.position_ids` (a buffer older transformers saved) and
`label_enc.weight` (the training-time denoising label table). transformers'
`swin.layernorm` (after the last stage) has no official counterpart and is not used by
its Swin backbone's forward: it is
set to the LayerNorm identity (ones, zeros).
"""

import re
from typing import Dict, List, Tuple

import torch

SWIN = "model.backbone.conv_encoder.model."
UNUSED_BY_FORWARD = (SWIN + "swin.layernorm.weight", SWIN + "swin.layernorm.bias")
_DROPPED = (r"backbone\.0\.layers\.\d+\.blocks\.\d+\.attn\.relative_position_index",
            r"bert\.pooler\..*", r"bert\.embeddings\.position_ids", r"label_enc\.weight")

_B, _SB = "backbone.0.layers.{i}.blocks.{j}.", SWIN + "swin.encoder.layers.{i}.blocks.{j}."
_E, _T = "transformer.encoder.layers.{i}.", "transformer.encoder.text_layers.{i}."
_F, _D = "transformer.encoder.fusion_layers.{i}.", "transformer.decoder.layers.{i}."
_ME, _MD = "model.encoder.layers.{i}.", "model.decoder.layers.{i}."
_TE, _FL = _ME + "text_enhancer_layer.", _ME + "fusion_layer."

# (official prefix, transformers prefix): a name starting with the one starts with the
# other, the rest unchanged; {i}, {j} stand for layer/block numbers. A prefix without a
# trailing "." names one whole tensor.
_RENAMES: Tuple[Tuple[str, str], ...] = (
    ("backbone.0.patch_embed.proj.", SWIN + "swin.embeddings.patch_embeddings.projection."),
    ("backbone.0.patch_embed.norm.", SWIN + "swin.embeddings.norm."),
    (_B + "norm1.", _SB + "layernorm_before."),
    (_B + "norm2.", _SB + "layernorm_after."),
    (_B + "attn.proj.", _SB + "attention.o_proj."),
    (_B + "attn.relative_position_bias_table",
     _SB + "attention.relative_position_bias.relative_position_bias_table"),
    (_B + "mlp.", _SB + "mlp."),
    ("backbone.0.layers.{i}.downsample.", SWIN + "swin.encoder.layers.{i}.downsample."),
    ("backbone.0.norm1.", SWIN + "hidden_states_norms.stage2."),
    ("backbone.0.norm2.", SWIN + "hidden_states_norms.stage3."),
    ("backbone.0.norm3.", SWIN + "hidden_states_norms.stage4."),
    ("bert.", "model.text_backbone."),
    ("feat_map.", "model.text_projection."),
    ("input_proj.", "model.input_proj_vision."),
    ("transformer.level_embed", "model.level_embed"),
    ("transformer.tgt_embed.", "model.query_position_embeddings."),
    ("transformer.enc_output.", "model.enc_output."),
    ("transformer.enc_output_norm.", "model.enc_output_norm."),
    ("transformer.enc_out_bbox_embed.", "model.encoder_output_bbox_embed."),
    (_E + "self_attn.", _ME + "deformable_layer.self_attn."),
    (_E + "norm1.", _ME + "deformable_layer.self_attn_layer_norm."),
    (_E + "linear1.", _ME + "deformable_layer.fc1."),
    (_E + "linear2.", _ME + "deformable_layer.fc2."),
    (_E + "norm2.", _ME + "deformable_layer.final_layer_norm."),
    (_T + "self_attn.out_proj.", _TE + "self_attn.out_proj."),
    (_T + "norm1.", _TE + "layer_norm_before."),
    (_T + "norm2.", _TE + "layer_norm_after."),
    (_T + "linear1.", _TE + "fc1."),
    (_T + "linear2.", _TE + "fc2."),
    (_F + "attn.v_proj.", _FL + "attn.vision_proj."),
    (_F + "attn.l_proj.", _FL + "attn.text_proj."),
    (_F + "attn.values_v_proj.", _FL + "attn.values_vision_proj."),
    (_F + "attn.values_l_proj.", _FL + "attn.values_text_proj."),
    (_F + "attn.out_v_proj.", _FL + "attn.out_vision_proj."),
    (_F + "attn.out_l_proj.", _FL + "attn.out_text_proj."),
    (_F + "layer_norm_v.", _FL + "layer_norm_vision."),
    (_F + "layer_norm_l.", _FL + "layer_norm_text."),
    (_F + "gamma_v", _FL + "vision_param"),
    (_F + "gamma_l", _FL + "text_param"),
    (_D + "cross_attn.", _MD + "encoder_attn."),
    (_D + "norm1.", _MD + "encoder_attn_layer_norm."),
    (_D + "ca_text.out_proj.", _MD + "encoder_attn_text.out_proj."),
    (_D + "catext_norm.", _MD + "encoder_attn_text_layer_norm."),
    (_D + "self_attn.out_proj.", _MD + "self_attn.out_proj."),
    (_D + "norm2.", _MD + "self_attn_layer_norm."),
    (_D + "linear1.", _MD + "fc1."),
    (_D + "linear2.", _MD + "fc2."),
    (_D + "norm3.", _MD + "final_layer_norm."),
    ("transformer.decoder.norm.", "model.decoder.layer_norm."),
    ("transformer.decoder.ref_point_head.", "model.decoder.reference_points_head."),
    ("transformer.decoder.bbox_embed.", "model.decoder.bbox_embed."),
    ("bbox_embed.", "bbox_embed."),
)

_QKV = ("query", "key", "value")
# Fused official projections (rows q, k, v, in that order): the official tensor name
# and the transformers one with {part} for each of the three parts; {p} is weight|bias.
_FUSED: Tuple[Tuple[str, str, Tuple[str, str, str]], ...] = (
    (_B + "attn.qkv.{p}", _SB + "attention.{part}.{p}", ("q_proj", "k_proj", "v_proj")),
    (_T + "self_attn.in_proj_{p}", _TE + "self_attn.{part}.{p}", _QKV),
    (_D + "self_attn.in_proj_{p}", _MD + "self_attn.{part}.{p}", _QKV),
    (_D + "ca_text.in_proj_{p}", _MD + "encoder_attn_text.{part}.{p}", _QKV),
)
_SLOTS = {"i": r"(?P<i>\d+)", "j": r"(?P<j>\d+)", "p": r"(?P<p>weight|bias)"}


def _pattern(template: str, whole: bool) -> "re.Pattern[str]":
    """A template with {i}/{j}/{p} slots as a regex (prefix unless `whole`)."""
    parts = re.split(r"\{(i|j|p)\}", template)
    regex = "".join(_SLOTS[part] if n % 2 else re.escape(part) for n, part in enumerate(parts))
    return re.compile(regex + ("$" if whole or not template.endswith(".") else ""))


def _fill(template: str, match: "re.Match[str]", **extra: str) -> str:
    return template.format(**{**match.groupdict(), **extra})


def _rename(key: str, direction: int) -> List[str]:
    """The name(s) of one tensor in the other layout (direction 0: official -> ours)."""
    if direction == 0:
        for source, target, parts in _FUSED:
            match = _pattern(source, whole=True).match(key)
            if match:
                return [_fill(target, match, part=part) for part in parts]
    for rule in _RENAMES:
        source, target = rule[direction], rule[1 - direction]
        match = _pattern(source, whole=False).match(key)
        if match:
            return [_fill(target, match) + key[match.end():]]
    return []


def _target_names(key: str) -> List[str]:
    """The transformers name(s) of one official tensor; [] if dropped.

    Raises:
        KeyError: The official name is not one the mapping knows.
    """
    if any(re.fullmatch(pattern, key) for pattern in _DROPPED):
        return []
    names = _rename(key, 0)
    if not names:
        raise KeyError(f"official GroundingDINO tensor {key!r} has no transformers counterpart")
    return names


def to_transformers(official: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
    """The official state dict (module prefixes already stripped) under transformers' names.

    Raises:
        KeyError: An official tensor the mapping does not know.
    """
    out: Dict[str, torch.Tensor] = {}
    for key, tensor in official.items():
        names = _target_names(key)
        if len(names) == 3:
            for name, part in zip(names, torch.chunk(tensor, 3, dim=0)):
                out[name] = part.clone()
        elif names:
            out[names[0]] = tensor
    like = out.get(SWIN + "hidden_states_norms.stage4.weight")
    if like is not None and UNUSED_BY_FORWARD[0] not in out:
        out[UNUSED_BY_FORWARD[0]] = torch.ones_like(like)
        out[UNUSED_BY_FORWARD[1]] = torch.zeros_like(like)
    return out


def to_official(ours: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
    """transformers tensors back in the official layout (fused projections re-fused).

    What the official file has and transformers lacks (the BERT pooler, the Swin
    relative_position_index buffers) is not produced; the official loader
    (`load_state_dict(strict=False)`) keeps its own initial values for those.

    Raises:
        KeyError: A transformers tensor the mapping does not know.
    """
    out: Dict[str, torch.Tensor] = {}
    pending: Dict[str, Dict[str, torch.Tensor]] = {}
    for key, tensor in ours.items():
        if key in UNUSED_BY_FORWARD:
            continue
        fused = _fused_source(key)
        if fused is not None:
            pending.setdefault(fused[0], {})[fused[1]] = tensor
            continue
        names = _rename(key, 1)
        if not names:
            raise KeyError(f"transformers tensor {key!r} has no official counterpart")
        out[names[0]] = tensor
    for name, parts in pending.items():
        out[name] = torch.cat([parts[part] for part in sorted(parts, key=_part_order)])
    return out


def _part_order(part: str) -> int:
    return next(rule[2].index(part) for rule in _FUSED if part in rule[2])


def _fused_source(key: str):
    """(official fused name, part) when `key` is one third of a fused projection."""
    for source, target, parts in _FUSED:
        for part in parts:
            match = _pattern(target.replace("{part}", part), whole=True).match(key)
            if match:
                return _fill(source, match), part
    return None


def strip_module_prefix(state: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
    """The official `clean_state_dict`: drops a leading `module.` (DataParallel saves)."""
    return {(k[len("module."):] if k.startswith("module.") else k): v for k, v in state.items()}
