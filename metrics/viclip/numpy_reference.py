"""An independent float64 numpy transcription of ViCLIP's forward pass, for tests only.

Written from the description in metrics/viclip/model.py's docstring (itself read off the
official modules), not from our torch code: patches as explicit slices and a matrix
product, attention as softmax(q k^T / sqrt(d)) v per head, LayerNorm eps 1e-5, QuickGELU.
"""

from typing import Dict

import numpy as np

EPS = 1e-5


def _ln(x, state, name):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + EPS) * state[name + ".weight"] + state[name + ".bias"]


def _block(x, state, prefix, heads, causal):
    """One pre-LN residual block on (L, width)."""
    length, width = x.shape
    h = _ln(x, state, prefix + "ln_1")
    qkv = h @ state[prefix + "attn.in_proj_weight"].T + state[prefix + "attn.in_proj_bias"]
    q, k, v = np.split(qkv, 3, axis=-1)
    d = width // heads
    out = np.zeros_like(h)
    for head in range(heads):
        cols = slice(head * d, (head + 1) * d)
        logits = q[:, cols] @ k[:, cols].T / np.sqrt(d)
        if causal:
            logits = np.where(np.tril(np.ones((length, length))) > 0, logits, -np.inf)
        weights = np.exp(logits - logits.max(-1, keepdims=True))
        out[:, cols] = (weights / weights.sum(-1, keepdims=True)) @ v[:, cols]
    x = x + out @ state[prefix + "attn.out_proj.weight"].T + state[prefix + "attn.out_proj.bias"]
    h = _ln(x, state, prefix + "ln_2")
    h = h @ state[prefix + "mlp.c_fc.weight"].T + state[prefix + "mlp.c_fc.bias"]
    h = h / (1 + np.exp(-1.702 * h))
    return x + h @ state[prefix + "mlp.c_proj.weight"].T + state[prefix + "mlp.c_proj.bias"]


def vision(video: np.ndarray, state: Dict[str, np.ndarray], layers: int, heads: int
           ) -> np.ndarray:
    """(T, 3, H, W) one clip -> (embed_dim,); `state` has the vision_encoder.* keys, unprefixed."""
    weight = state["conv1.weight"]                       # (C, 3, 1, p, p)
    width, patch = weight.shape[0], weight.shape[-1]
    frames, _, height, _ = video.shape
    grid = height // patch
    kernel = weight.reshape(width, -1)
    tokens = []                                           # patch-major, frame-minor
    for row in range(grid):
        for col in range(grid):
            n = row * grid + col
            for t in range(frames):
                piece = video[t, :, row * patch:(row + 1) * patch, col * patch:(col + 1) * patch]
                tokens.append(kernel @ piece.reshape(-1) + state["positional_embedding"][n + 1]
                              + state["temporal_positional_embedding"][0, t])
    cls = state["class_embedding"] + state["positional_embedding"][0]
    x = _ln(np.stack([cls] + tokens), state, "ln_pre")
    for i in range(layers):
        x = _block(x, state, f"transformer.resblocks.{i}.", heads, causal=False)
    return _ln(x[0], state, "ln_post") @ state["proj"]


def text(tokens: np.ndarray, state: Dict[str, np.ndarray], layers: int, heads: int
         ) -> np.ndarray:
    """(context,) ids -> (embed_dim,); `state` has the text_encoder.* keys, unprefixed."""
    x = state["token_embedding.weight"][tokens] + state["positional_embedding"]
    for i in range(layers):
        x = _block(x, state, f"transformer.resblocks.{i}.", heads, causal=True)
    return _ln(x, state, "ln_final")[int(np.argmax(tokens))] @ state["text_projection"]
