"""Tests for metrics.clip.clip_text against a float64 numpy transcription."""

import numpy as np
import pytest
import torch

from metrics.clip import clip_text
from metrics.clip import reference_clip

_WIDTH, _HEADS, _LENGTH, _EMBED = 32, 4, 12, 16


@pytest.fixture(scope="module")
def tower():
    """A 2-layer, 4-head text tower with random weights and its state dict (OpenAI keys)."""
    torch.manual_seed(0)
    transformer = clip_text.Transformer(_WIDTH, 2, _HEADS).eval()
    ln_final = torch.nn.LayerNorm(_WIDTH)
    positional = torch.randn(_LENGTH, _WIDTH) * 0.1
    projection = torch.randn(_WIDTH, _EMBED) * _WIDTH ** -0.5
    with torch.no_grad():
        for block in transformer.resblocks:
            block.attn.in_proj_bias.normal_(0.0, 0.1)
            block.ln_1.weight.uniform_(0.8, 1.2)
        ln_final.bias.normal_(0.0, 0.1)
    state = {f"transformer.{k}": v for k, v in transformer.state_dict().items()}
    state.update({"ln_final.weight": ln_final.weight.detach(),
                  "ln_final.bias": ln_final.bias.detach(),
                  "positional_embedding": positional, "text_projection": projection})
    return transformer, ln_final, positional, projection, state


def _encode(tower, prompts, eot):
    transformer, ln_final, positional, projection, _ = tower
    with torch.no_grad():
        return clip_text.encode_embeddings(torch.as_tensor(prompts, dtype=torch.float32),
                                           torch.as_tensor(eot), positional, transformer,
                                           ln_final, projection)


def test_keys_are_openais(tower):
    *_, state = tower
    for key in ("transformer.resblocks.0.attn.in_proj_weight",
                "transformer.resblocks.1.attn.out_proj.bias",
                "transformer.resblocks.0.ln_1.weight", "transformer.resblocks.0.mlp.c_fc.weight",
                "transformer.resblocks.1.mlp.c_proj.bias", "transformer.resblocks.1.ln_2.bias"):
        assert key in state, key


def test_matches_numpy_transcription(tower):
    *_, state = tower
    prompts = np.random.default_rng(0).normal(0, 1, (3, _LENGTH, _WIDTH)).astype(np.float32)
    eot = [5, 11, 0]
    ours = _encode(tower, prompts, eot).double().numpy()
    expected = reference_clip.text_features(state, prompts, eot, _HEADS)
    np.testing.assert_allclose(ours, expected, rtol=1e-4, atol=1e-5)
    assert np.abs(expected[0] - expected[1]).max() > 0.1


def test_attention_is_causal(tower):
    prompts = np.random.default_rng(1).normal(0, 1, (1, _LENGTH, _WIDTH)).astype(np.float32)
    before = _encode(tower, prompts, [6])
    noise = np.random.default_rng(2).normal(0, 3, prompts.shape).astype(np.float32)
    later = prompts.copy()
    later[0, 7:] += noise[0, 7:]  # tokens after the pooled one
    assert torch.equal(before, _encode(tower, later, [6]))
    earlier = prompts.copy()
    earlier[0, 2] += noise[0, 2]  # LayerNorm ignores a constant shift: use noise
    assert (before - _encode(tower, earlier, [6])).abs().max() > 1e-3


def test_causal_mask():
    mask = clip_text.causal_mask(4)
    assert torch.equal(mask == 0, torch.tril(torch.ones(4, 4, dtype=torch.bool)))
    assert torch.isinf(mask[0, 1:]).all() and (mask[0, 1:] < 0).all()


def test_quick_gelu():
    x = torch.linspace(-4, 4, 17)
    torch.testing.assert_close(clip_text.QuickGELU()(x), x / (1 + torch.exp(-1.702 * x)))


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
