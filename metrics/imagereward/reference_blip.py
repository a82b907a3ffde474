"""Test support: ImageReward's forward pass transcribed from the official code, in float64.

Reads ImageReward.pt's own key names (no key mapping, no transformers) and follows
ImageReward.inference_rank line by line: BLIP vit.py (timm ViT: patch conv, class
token, position table, pre-norm blocks with a fused qkv split as
reshape(B, N, 3, heads, d).permute(2, 0, 3, 1, 4), exact GELU, LayerNorm eps 1e-6,
final norm), then med.py's BertModel in multimodal mode (word + position embeddings,
LayerNorm; per layer self-attention with the additive (1 - mask) * -10000 padding
mask, cross-attention to all image tokens, feed-forward; post-LN residuals), the first
token, the MLP, and (reward - mean) / std.
"""

import math

import torch
import torch.nn.functional as F

from metrics.imagereward import reward_model


def _linear(state, prefix, x):
    return x @ state[prefix + "weight"].T + state[prefix + "bias"]


def _layer_norm(state, prefix, x, eps):
    return F.layer_norm(x, x.shape[-1:], state[prefix + "weight"], state[prefix + "bias"], eps)


def _heads(x, count):
    batch, length, width = x.shape
    return x.reshape(batch, length, count, width // count).permute(0, 2, 1, 3)


def vit_forward(state, pixels):
    """vit.py VisionTransformer.forward: (B, 197, width) image tokens."""
    p = "blip.visual_encoder."
    conv = state[p + "patch_embed.proj.weight"]
    x = F.conv2d(pixels, conv, state[p + "patch_embed.proj.bias"], stride=conv.shape[-1])
    x = x.flatten(2).transpose(1, 2)
    x = torch.cat([state[p + "cls_token"].expand(x.shape[0], -1, -1), x], dim=1)
    x = x + state[p + "pos_embed"][:, :x.shape[1]]
    width = x.shape[-1]
    heads = width // 64
    depth = len({k.split(".")[3] for k in state if k.startswith(p + "blocks.")})
    for i in range(depth):
        b = f"{p}blocks.{i}."
        h = _layer_norm(state, b + "norm1.", x, 1e-6)
        batch, length, _ = h.shape
        qkv = _linear(state, b + "attn.qkv.", h).reshape(
            batch, length, 3, heads, width // heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = ((q @ k.transpose(-2, -1)) * (width // heads) ** -0.5).softmax(dim=-1)
        x = x + _linear(state, b + "attn.proj.", (attn @ v).transpose(1, 2).reshape(
            batch, length, width))
        h = _layer_norm(state, b + "norm2.", x, 1e-6)
        x = x + _linear(state, b + "mlp.fc2.", F.gelu(_linear(state, b + "mlp.fc1.", h)))
    return _layer_norm(state, p + "norm.", x, 1e-6)


def _attention(state, prefix, hidden, context, mask, heads, eps):
    q = _heads(_linear(state, prefix + "self.query.", hidden), heads)
    k = _heads(_linear(state, prefix + "self.key.", context), heads)
    v = _heads(_linear(state, prefix + "self.value.", context), heads)
    scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores + mask
    out = (scores.softmax(dim=-1) @ v).permute(0, 2, 1, 3).reshape(hidden.shape)
    return _layer_norm(state, prefix + "output.LayerNorm.",
                       _linear(state, prefix + "output.dense.", out) + hidden, eps)


def bert_forward(state, med, input_ids, attention_mask, image_embeds):
    """med.py BertModel(mode="multimodal") last_hidden_state."""
    p = "blip.text_encoder."
    eps, heads = med["layer_norm_eps"], med["num_attention_heads"]
    positions = torch.arange(input_ids.shape[1])
    x = (state[p + "embeddings.word_embeddings.weight"][input_ids]
         + state[p + "embeddings.position_embeddings.weight"][positions])
    x = _layer_norm(state, p + "embeddings.LayerNorm.", x, eps)
    mask = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
    for i in range(med["num_hidden_layers"]):
        layer = f"{p}encoder.layer.{i}."
        x = _attention(state, layer + "attention.", x, x, mask, heads, eps)
        x = _attention(state, layer + "crossattention.", x, image_embeds, None, heads, eps)
        h = F.gelu(_linear(state, layer + "intermediate.dense.", x))
        x = _layer_norm(state, layer + "output.LayerNorm.",
                        _linear(state, layer + "output.dense.", h) + x, eps)
    return x


def rewards(state, med, pixels, input_ids, attention_mask):
    """ImageReward's normalised reward of each image (float64)."""
    state = {k: v.double() if v.is_floating_point() else v for k, v in state.items()}
    image_embeds = vit_forward(state, pixels.double())
    text = bert_forward(state, med, input_ids.expand(pixels.shape[0], -1),
                        attention_mask.expand(pixels.shape[0], -1), image_embeds)
    x = text[:, 0, :]
    for index in (0, 2, 4, 6, 7):
        x = _linear(state, f"mlp.layers.{index}.", x)
    return ((x - reward_model.REWARD_MEAN) / reward_model.REWARD_STD)[:, 0]
