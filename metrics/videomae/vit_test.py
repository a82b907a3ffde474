"""The ViT against independent references: the full-size state-dict names and shapes of
the official vit_giant_patch14_224 (generated from the vendored modeling_finetune.py,
testdata/), and the forward pass against transformers' VideoMAEForVideoClassification
on the same weights (q/k/v split, fc_norm eps set to the official 1e-6)."""

import json
import pathlib

import numpy as np
import torch
from transformers import VideoMAEConfig, VideoMAEForVideoClassification
from transformers.models.videomae import modeling_videomae

from metrics.videomae import vit

SHAPES = pathlib.Path(__file__).parent / "testdata" / "vit_g_cas_state_dict_shapes.json"
TINY = vit.VitConfig(img_size=28, patch_size=14, embed_dim=32, depth=2, num_heads=4)


def test_full_size_names_and_shapes_equal_the_official_model():
    official = json.loads(SHAPES.read_text())
    with torch.device("meta"):
        model = vit.VideoClassifierViT(vit.VIT_G_CAS)
    ours = {k: list(v.shape) for k, v in model.state_dict().items()}
    assert list(ours) == list(official)  # same names, same order
    assert ours == official
    assert sum(np.prod(s) for s in official.values()) == 1_011_617_797
    assert tuple(model.pos_embed.shape) == (1, 2048, 1408)  # 8 x 16 x 16, not saved


def test_sinusoid_table_equals_transformers_bit_for_bit():
    for n, d in ((72, 32), (2048, 1408)):
        ours = vit.sinusoid_table(n, d)
        theirs = modeling_videomae.get_sinusoid_encoding_table(n, d)
        assert ours.dtype == torch.float32 and ours.shape == (1, n, d)
        assert torch.equal(ours, theirs)


def _hf_twin(model: vit.VideoClassifierViT) -> VideoMAEForVideoClassification:
    c = model.config
    config = VideoMAEConfig(image_size=c.img_size, patch_size=c.patch_size, num_channels=3,
                            num_frames=c.frames, tubelet_size=c.tubelet_size,
                            hidden_size=c.embed_dim, num_hidden_layers=c.depth,
                            num_attention_heads=c.num_heads,
                            intermediate_size=int(c.embed_dim * c.mlp_ratio),
                            hidden_act="gelu", qv_bias=True, use_mean_pooling=True,
                            layer_norm_eps=c.norm_eps, num_labels=c.num_classes,
                            attn_implementation="eager")
    hf = VideoMAEForVideoClassification(config).eval()
    s = model.state_dict()
    mapped = {"videomae.embeddings.patch_embeddings.projection.weight":
              s["patch_embed.proj.weight"],
              "videomae.embeddings.patch_embeddings.projection.bias": s["patch_embed.proj.bias"],
              "fc_norm.weight": s["fc_norm.weight"], "fc_norm.bias": s["fc_norm.bias"],
              "classifier.weight": s["head.weight"], "classifier.bias": s["head.bias"]}
    for i in range(c.depth):
        src, dst = f"blocks.{i}.", f"videomae.encoder.layer.{i}."
        q, k, v = s[src + "attn.qkv.weight"].chunk(3)
        att = dst + "attention.attention."
        mapped.update({att + "query.weight": q, att + "key.weight": k, att + "value.weight": v,
                       att + "query.bias": s[src + "attn.q_bias"],
                       att + "value.bias": s[src + "attn.v_bias"]})
        for ours, theirs in (("attn.proj", "attention.output.dense"),
                             ("norm1", "layernorm_before"), ("norm2", "layernorm_after"),
                             ("mlp.fc1", "intermediate.dense"), ("mlp.fc2", "output.dense")):
            for part in ("weight", "bias"):
                mapped[f"{dst}{theirs}.{part}"] = s[f"{src}{ours}.{part}"]
    hf.load_state_dict(mapped, strict=True)  # every transformers tensor from ours
    return hf


def test_forward_equals_transformers_videomae_on_the_same_weights():
    model = vit.random_init(TINY, seed=1)
    with torch.no_grad():
        for p in model.parameters():  # weights of unit scale so every stage matters
            p.add_(torch.randn(p.shape, generator=torch.Generator().manual_seed(p.numel()))
                   * 0.3)
    hf = _hf_twin(model)
    x = torch.from_numpy(np.random.default_rng(0).normal(size=(2, 3, 16, 28, 28))
                         .astype(np.float32))
    with torch.no_grad():
        ours = model(x)
        assert hf.fc_norm.eps == 1e-5  # transformers' fc_norm: LayerNorm's default eps
        hf.fc_norm.eps = 1e-6          # the official fc_norm's
        theirs = hf(pixel_values=x.permute(0, 2, 1, 3, 4)).logits
    assert ours.abs().max() > 0.1
    torch.testing.assert_close(ours, theirs, rtol=1e-5, atol=1e-5)


def test_clip_shape_is_checked():
    model = vit.random_init(TINY, seed=0)
    try:
        model(torch.zeros(1, 3, 8, 28, 28))
    except ValueError as error:
        assert "(B, 3, 16, 28, 28)" in str(error)
    else:
        raise AssertionError("an 8-frame clip was accepted")


def test_norm_eps_and_exact_gelu_of_the_official_model():
    """What the shapes cannot show: every LayerNorm (fc_norm included) at eps 1e-6, the
    MLP's exact (erf) GELU, head_dim ** -0.5 as the attention scale."""
    with torch.device("meta"):
        model = vit.VideoClassifierViT(vit.VIT_G_CAS)
    norms = [m for m in model.modules() if isinstance(m, torch.nn.LayerNorm)]
    assert len(norms) == 2 * 40 + 1 and all(m.eps == 1e-6 for m in norms)
    acts = [m.mlp.act for m in model.blocks]
    assert all(type(a) is torch.nn.GELU and a.approximate == "none" for a in acts)
    assert model.blocks[0].attn.scale == 88 ** -0.5
