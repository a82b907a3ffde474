"""The mPLUG-Owl2 architecture: official names/shapes at full size, and the quirks."""

import json
import pathlib

import numpy as np
import torch

from metrics.qalign import abstractor
from metrics.qalign import config as config_lib
from metrics.qalign import llama_multiway
from metrics.qalign import model as model_lib
from metrics.qalign import tiny_snapshot
from metrics.qalign import vision

# The official state dict at full size: the vendored Q-Align `MPLUGOwl2LlamaForCausalLM
# (MPLUGOwl2Config())` built on the meta device with transformers 4.36.1
# (tools/calibration/official_runs/qalign.py keys), {name: shape}.
SHAPES = pathlib.Path(__file__).parent / "testdata" / "one_align_state_dict_shapes.json"


def _tiny(seed=0):
    torch.manual_seed(seed)
    model = model_lib.QAlignModel(config_lib.TINY)
    model.load_state_dict(tiny_snapshot.random_state(config_lib.TINY, seed))
    return model.eval()


def test_full_size_names_and_shapes_equal_the_official_state_dict():
    official = json.loads(SHAPES.read_text())
    with torch.device("meta"):
        ours = model_lib.QAlignModel(config_lib.FULL)
    shapes = {k: list(v.shape) for k, v in ours.state_dict().items()}
    assert shapes == official
    assert len(official) == 862
    params = sum(p.numel() for p in ours.parameters())
    assert params == 8_197_859_328  # 16.4 GB in fp16, 32.8 GB in fp32


def test_position_tables_are_the_closed_form_sine_cosine():
    cfg = config_lib.AbstractorConfig(hidden_size=8, num_learnable_queries=3, grid_size=2)
    q_pos, k_pos = abstractor.position_tables(cfg)
    omega = 1 / 10000 ** (np.arange(4) / 4)
    np.testing.assert_allclose(q_pos[2].numpy(), np.r_[np.sin(2 * omega), np.cos(2 * omega)],
                               rtol=1e-6)
    assert k_pos.shape == (5, 8) and not k_pos[0].any()
    omega2 = 1 / 10000 ** (np.arange(2) / 2)
    # cell (row 1, col 0) is k_pos[1 + 2]: column 0 in the first half, row 1 in the second
    want = np.r_[np.sin(0 * omega2), np.cos(0 * omega2), np.sin(omega2), np.cos(omega2)]
    np.testing.assert_allclose(k_pos[3].numpy(), want, rtol=1e-6)


def test_vision_qkv_is_laid_out_per_head():
    """The fused projection's rows are (head, q|k|v, head_dim) (the official reshape to
    (B, L, heads, 3, head_dim)): q, k, v built by hand from that layout."""
    cfg = config_lib.VisionConfig(hidden_size=8, num_attention_heads=2, intermediate_size=8,
                                  num_hidden_layers=1, image_size=28, patch_size=14)
    attn = vision.Attention(cfg)
    torch.manual_seed(0)
    x = torch.randn(1, 5, 8)
    w = attn.query_key_value.weight.detach().view(2, 3, 4, 8)
    b = attn.query_key_value.bias.detach().view(2, 3, 4)
    q, k, v = (torch.einsum("bld,hod->bhlo", x, w[:, i]) + b[:, i][None, :, None]
               for i in range(3))
    probs = torch.softmax(q @ k.transpose(-1, -2) / 2.0, -1)
    want = attn.dense((probs @ v).permute(0, 2, 1, 3).reshape(1, 5, 8))
    torch.testing.assert_close(attn(x), want)


def test_multiway_routes_each_token_by_modality():
    model = _tiny()
    layer = model.model.layers[0]
    x = torch.randn(2, 6, config_lib.TINY.hidden_size)
    modality = torch.tensor([[0, 1, 1, 0, 0, 1]] * 2)
    out = layer.input_layernorm(x, modality)
    text, image = layer.input_layernorm.multiway
    torch.testing.assert_close(out[modality == 0], text(x[modality == 0]))
    torch.testing.assert_close(out[modality == 1], image(x[modality == 1]))
    assert not torch.allclose(text(x), image(x))


def test_image_tokens_take_the_placeholder_and_modality_one():
    model = _tiny()
    cfg = config_lib.TINY
    ids = torch.tensor([1, 5, 6, model_lib.IMAGE_TOKEN, 7, 8])
    pixels = torch.randn(2, 3, 3, cfg.vision.image_size, cfg.vision.image_size)
    logits = model(ids, pixels)
    per_frame = cfg.abstractor.num_learnable_queries + 1
    assert logits.shape == (2, 5 + 3 * per_frame, cfg.vocab_size)
    # the text before the image cannot see it (causal): its logits ignore the pixels
    other = model(ids, torch.randn_like(pixels))
    torch.testing.assert_close(logits[:, :3], other[:, :3])
    assert not torch.allclose(logits[:, -1], other[:, -1])
    # batch rows are independent
    torch.testing.assert_close(model(ids, pixels[1:]), logits[1:], rtol=1e-5, atol=1e-6)


def test_a_prompt_without_the_placeholder_is_refused():
    model = _tiny()
    try:
        model(torch.tensor([1, 2, 3]), torch.zeros(1, 1, 3, 28, 28))
    except ValueError as error:
        assert "one image placeholder" in str(error)
    else:
        raise AssertionError("expected a ValueError")


def test_rotary_is_the_llama_default():
    rot = llama_multiway.rotary(llama_multiway.hf_llama_config(config_lib.FULL))
    inv = 1.0 / 10000 ** (torch.arange(0, 128, 2, dtype=torch.float) / 128)
    torch.testing.assert_close(rot.inv_freq, inv)
