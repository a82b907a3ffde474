"""The official GroundingDINO checkpoint layout -> transformers names, at full size and tiny."""

import json

import pytest
import torch
from transformers import BertConfig
from transformers import GroundingDinoForObjectDetection

from benchmarks.common import paths
from metrics.detection import grounding_dino_config
from metrics.detection import grounding_dino_keys

# Written by tools/calibration/official_runs/grounding_dino.py (keys) from the official
# GroundingDINO models: every state-dict name and shape. Swin-B from the tree VMBench
# vendors (GroundingDINO_SwinB.py); Swin-T OGC from the tree WorldScore vendors
# (GroundingDINO_SwinT_OGC.py). (file, architecture, tensors, dropped Swin blocks)
OFFICIAL = {
    "swinb": ("metrics/detection/testdata/groundingdino_swinb_keys.json",
              grounding_dino_config.SWINB, 1106, 2 + 2 + 18 + 2),
    "swint_ogc": ("metrics/detection/testdata/groundingdino_swint_ogc_keys.json",
                  grounding_dino_config.SWINT_OGC, 938, 2 + 2 + 6 + 2),
}


def _official_shapes(variant):
    return json.loads(paths.runfile(OFFICIAL[variant][0]).read_text(encoding="utf-8"))


@pytest.mark.parametrize("variant", sorted(OFFICIAL))
def test_the_mapping_covers_every_transformers_tensor_at_full_size_with_its_shape(variant):
    _, arch, count, _ = OFFICIAL[variant]
    official = {k: torch.empty(v, device="meta") for k, v in _official_shapes(variant).items()}
    assert len(official) == count
    ours = grounding_dino_keys.to_transformers(official)
    with torch.device("meta"):
        model = GroundingDinoForObjectDetection(arch.to_transformers(BertConfig()))
    expected = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    assert sorted(set(expected) - set(ours)) == []
    assert sorted(set(ours) - set(expected)) == []
    assert {k: tuple(v.shape) for k, v in ours.items()} == expected


@pytest.mark.parametrize("variant", sorted(OFFICIAL))
def test_only_the_documented_official_tensors_are_dropped(variant):
    shapes = _official_shapes(variant)
    back = grounding_dino_keys.to_official(grounding_dino_keys.to_transformers(
        {k: torch.empty(v, device="meta") for k, v in shapes.items()}))
    dropped = sorted(set(shapes) - set(back))
    assert set(back) <= set(shapes)
    assert dropped == sorted(
        ["bert.pooler.dense.weight", "bert.pooler.dense.bias"]
        + [k for k in shapes if k.endswith("attn.relative_position_index")])
    assert len(dropped) == 2 + OFFICIAL[variant][3]


def test_the_two_variants_differ_only_in_the_swin_backbone_and_its_projections():
    b, t = _official_shapes("swinb"), _official_shapes("swint_ogc")
    rest = lambda s: {k: v for k, v in s.items()  # pylint: disable=unnecessary-lambda-assignment
                      if not k.startswith(("backbone.0.", "input_proj."))}
    assert rest(b) == rest(t)
    assert [t[f"input_proj.{i}.0.weight"][1] for i in range(4)] == [192, 384, 768, 768]
    assert t["backbone.0.patch_embed.proj.weight"] == [96, 3, 4, 4]
    assert t["backbone.0.layers.0.blocks.0.attn.relative_position_bias_table"] == [169, 3]
    assert "backbone.0.layers.2.blocks.5.mlp.fc1.weight" in t
    assert "backbone.0.layers.2.blocks.6.mlp.fc1.weight" not in t


def test_fused_projections_split_in_query_key_value_order():
    qkv = torch.arange(12.0).view(6, 2)  # rows: q (0, 1), k (2, 3), v (4, 5)
    swin = grounding_dino_keys.to_transformers({
        "backbone.0.layers.2.blocks.17.attn.qkv.weight": qkv,
        "transformer.decoder.layers.5.ca_text.in_proj_bias": torch.arange(6.0)})
    prefix = grounding_dino_keys.SWIN + "swin.encoder.layers.2.blocks.17.attention."
    assert torch.equal(swin[prefix + "q_proj.weight"], qkv[0:2])
    assert torch.equal(swin[prefix + "k_proj.weight"], qkv[2:4])
    assert torch.equal(swin[prefix + "v_proj.weight"], qkv[4:6])
    text = "model.decoder.layers.5.encoder_attn_text."
    assert swin[text + "query.bias"].tolist() == [0.0, 1.0]
    assert swin[text + "value.bias"].tolist() == [4.0, 5.0]
    back = grounding_dino_keys.to_official(swin)
    assert torch.equal(back["backbone.0.layers.2.blocks.17.attn.qkv.weight"], qkv)


@pytest.mark.parametrize("official, ours", [
    ("backbone.0.norm1.weight", "hidden_states_norms.stage2.weight"),
    ("backbone.0.norm3.bias", "hidden_states_norms.stage4.bias"),
    ("transformer.decoder.layers.0.norm1.weight", "encoder_attn_layer_norm.weight"),
    ("transformer.decoder.layers.0.norm2.weight", "self_attn_layer_norm.weight"),
    ("transformer.decoder.layers.0.norm3.weight", "final_layer_norm.weight"),
    ("transformer.encoder.text_layers.3.norm1.bias", "layer_norm_before.bias"),
    ("transformer.encoder.fusion_layers.1.gamma_v", "fusion_layer.vision_param"),
    ("transformer.tgt_embed.weight", "model.query_position_embeddings.weight"),
    ("bert.encoder.layer.11.output.dense.weight",
     "model.text_backbone.encoder.layer.11.output.dense.weight"),
])
def test_renames_follow_the_forward_order_of_the_two_architectures(official, ours):
    name, = grounding_dino_keys.to_transformers({official: torch.zeros(1)})
    assert name.endswith(ours)


def test_unknown_names_raise_and_the_unused_swin_norm_is_the_identity():
    with pytest.raises(KeyError, match="transformer.extra.weight"):
        grounding_dino_keys.to_transformers({"transformer.extra.weight": torch.zeros(1)})
    # The released file's two extra tensors (its official load's unexpected_keys).
    out = grounding_dino_keys.to_transformers({"backbone.0.norm3.weight": torch.rand(8),
                                              "bert.embeddings.position_ids": torch.zeros(1),
                                              "label_enc.weight": torch.zeros(2001, 256)})
    weight, bias = grounding_dino_keys.UNUSED_BY_FORWARD
    assert out[weight].tolist() == [1.0] * 8 and out[bias].tolist() == [0.0] * 8
    assert len(out) == 3


def test_module_prefix_is_stripped_as_clean_state_dict_does():
    state = grounding_dino_keys.strip_module_prefix({"module.feat_map.weight": 1,
                                                     "bert.module.x": 2})
    assert state == {"feat_map.weight": 1, "bert.module.x": 2}
