"""Test support: a tiny random ImageReward saved as the official files.

`ImageReward.pt` is written key by key in the official layout (ImageReward's
`state_dict()`: `blip.visual_encoder.*` of BLIP's timm-style ViT, `blip.text_encoder.*`
of med.py's BertModel, `mlp.layers.*`, plus the keys scoring never reads:
`blip.vision_proj`, `blip.text_proj` and med.py's persistent `position_ids` buffer),
without going through this package's key mapping, so a loader test is not circular.
Beside it: a med_config.json shaped like BLIP's, and a small bert-style vocab.txt.

Sizes: ViT at 224 px with patch 16 (197 tokens, as the real one), width 64 (one
64-wide head), 2 blocks; BERT hidden 32, 2 heads, 2 layers; the MLP keeps the
official widths. Weights are drawn wider than an init would so that outputs vary.
"""

import json
import pathlib

import torch

from metrics.imagereward import reward_model

VIT_WIDTH = 64
VIT_DEPTH = 2
VIT_MLP = 128
PATCH = 16
IMAGE_SIZE = 224
TEXT_HIDDEN = 32
TEXT_LAYERS = 2
TEXT_HEADS = 2
TEXT_INTERMEDIATE = 64
MAX_POSITIONS = 40
MLP_WIDTHS = (1024, 128, 64, 16, 1)  # ImageReward's MLP after the 768 (here 32) input

VOCAB = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "the", "person", "fox", "bird",
         "walks", "crossing", "from", "left", "to", "right", "street", "sees", "another",
         "camera", "(", ")", ".", ",", "subject", "glass", "of", "water", "nan", "##s", "##ing")


def med_config() -> dict:
    """BLIP's med_config.json fields at the tiny sizes (vocab + [DEC] + [ENC])."""
    return {
        "architectures": ["BertModel"], "attention_probs_dropout_prob": 0.1,
        "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": TEXT_HIDDEN,
        "initializer_range": 0.02, "intermediate_size": TEXT_INTERMEDIATE,
        "layer_norm_eps": 1e-12, "max_position_embeddings": MAX_POSITIONS,
        "model_type": "bert", "num_attention_heads": TEXT_HEADS,
        "num_hidden_layers": TEXT_LAYERS, "pad_token_id": 0, "type_vocab_size": 2,
        "vocab_size": len(VOCAB) + 2, "encoder_width": TEXT_HIDDEN,
        "add_cross_attention": True,
    }


def _linear(state, prefix, out_dim, in_dim, gen, scale=None):
    scale = scale if scale is not None else in_dim ** -0.5
    state[prefix + "weight"] = torch.randn(out_dim, in_dim, generator=gen) * scale
    state[prefix + "bias"] = torch.randn(out_dim, generator=gen) * 0.1


def _norm(state, prefix, dim, gen):
    state[prefix + "weight"] = 1.0 + 0.1 * torch.randn(dim, generator=gen)
    state[prefix + "bias"] = 0.1 * torch.randn(dim, generator=gen)


def _vision_state(gen) -> dict:
    state, p = {}, "blip.visual_encoder."
    state[p + "cls_token"] = torch.randn(1, 1, VIT_WIDTH, generator=gen)
    tokens = (IMAGE_SIZE // PATCH) ** 2 + 1
    state[p + "pos_embed"] = torch.randn(1, tokens, VIT_WIDTH, generator=gen)
    state[p + "patch_embed.proj.weight"] = torch.randn(
        VIT_WIDTH, 3, PATCH, PATCH, generator=gen) * (3 * PATCH * PATCH) ** -0.5
    state[p + "patch_embed.proj.bias"] = 0.1 * torch.randn(VIT_WIDTH, generator=gen)
    for i in range(VIT_DEPTH):
        b = f"{p}blocks.{i}."
        _norm(state, b + "norm1.", VIT_WIDTH, gen)
        _linear(state, b + "attn.qkv.", 3 * VIT_WIDTH, VIT_WIDTH, gen)
        _linear(state, b + "attn.proj.", VIT_WIDTH, VIT_WIDTH, gen)
        _norm(state, b + "norm2.", VIT_WIDTH, gen)
        _linear(state, b + "mlp.fc1.", VIT_MLP, VIT_WIDTH, gen)
        _linear(state, b + "mlp.fc2.", VIT_WIDTH, VIT_MLP, gen)
    _norm(state, p + "norm.", VIT_WIDTH, gen)
    return state


def _attention(state, prefix, kv_dim, gen):
    for name in ("query", "key", "value"):
        _linear(state, f"{prefix}self.{name}.", TEXT_HIDDEN,
                TEXT_HIDDEN if name == "query" else kv_dim, gen)
    _linear(state, prefix + "output.dense.", TEXT_HIDDEN, TEXT_HIDDEN, gen)
    _norm(state, prefix + "output.LayerNorm.", TEXT_HIDDEN, gen)


def _text_state(gen) -> dict:
    state, p = {}, "blip.text_encoder."
    vocab = len(VOCAB) + 2
    state[p + "embeddings.word_embeddings.weight"] = torch.randn(vocab, TEXT_HIDDEN, generator=gen)
    state[p + "embeddings.position_embeddings.weight"] = torch.randn(
        MAX_POSITIONS, TEXT_HIDDEN, generator=gen)
    _norm(state, p + "embeddings.LayerNorm.", TEXT_HIDDEN, gen)
    state[p + "embeddings.position_ids"] = torch.arange(MAX_POSITIONS).expand((1, -1)).clone()
    for i in range(TEXT_LAYERS):
        layer = f"{p}encoder.layer.{i}."
        _attention(state, layer + "attention.", TEXT_HIDDEN, gen)
        _attention(state, layer + "crossattention.", VIT_WIDTH, gen)
        _linear(state, layer + "intermediate.dense.", TEXT_INTERMEDIATE, TEXT_HIDDEN, gen)
        _linear(state, layer + "output.dense.", TEXT_HIDDEN, TEXT_INTERMEDIATE, gen)
        _norm(state, layer + "output.LayerNorm.", TEXT_HIDDEN, gen)
    return state


def tiny_state_dict(seed: int = 0) -> dict:
    """The tiny model's weights under ImageReward.pt's key names."""
    gen = torch.Generator().manual_seed(seed)
    state = {**_vision_state(gen), **_text_state(gen)}
    _linear(state, "blip.vision_proj.", 16, VIT_WIDTH, gen)  # in the file, unused by score()
    _linear(state, "blip.text_proj.", 16, TEXT_HIDDEN, gen)
    widths = (TEXT_HIDDEN,) + MLP_WIDTHS
    layers = zip(widths[:-1], widths[1:], strict=True)
    for index, (in_dim, out_dim) in zip((0, 2, 4, 6, 7), layers, strict=True):
        _linear(state, f"mlp.layers.{index}.", out_dim, in_dim, gen)
    return state


def save_tiny_image_reward(checkpoint_dir, seed: int = 0) -> pathlib.Path:
    """Writes <dir>/image_reward/{ImageReward.pt, med_config.json} and
    <dir>/bert_base_uncased/vocab.txt (the resolver's layout); returns <dir>."""
    root = pathlib.Path(checkpoint_dir)
    folder = root / reward_model.IMAGE_REWARD.name
    folder.mkdir(parents=True, exist_ok=True)
    torch.save(tiny_state_dict(seed), folder / reward_model.IMAGE_REWARD.filename)
    (folder / reward_model.MED_CONFIG.filename).write_text(json.dumps(med_config(), indent=2))
    vocab_dir = root / reward_model.BERT_VOCAB.name
    vocab_dir.mkdir(parents=True, exist_ok=True)
    (vocab_dir / reward_model.BERT_VOCAB.filename).write_text("\n".join(VOCAB) + "\n")
    return root
