"""Test support: OpenAI CLIP-ResNet and CLIP-IQA+ written out from a state dict, no modules.

Independent transcriptions to check open_clip's ModifiedResNet as metrics.clip.openai_clip
runs it, clip_text and clipiqa against: the ResNet as torch.nn.functional calls on the
checkpoint's tensors (by key), the attention pool, the text transformer and the CLIP-IQA+
arithmetic in float64 numpy.
"""

import numpy as np
import torch
from torch.nn import functional as F

MEAN = np.array([0.48145466, 0.4578275, 0.40821073], dtype=np.float32)
STD = np.array([0.26862954, 0.26130258, 0.27577711], dtype=np.float32)


def pixels(frame_bgr) -> np.ndarray:
    """(3, H, W) float32: ToTensor of the RGB frame, then (x - mean) / std."""
    rgb = np.asarray(frame_bgr)[:, :, ::-1].astype(np.float32) / np.float32(255)
    return ((rgb - MEAN) / STD).transpose(2, 0, 1)


def _bn(state, prefix, x):
    return F.batch_norm(x, state[prefix + ".running_mean"], state[prefix + ".running_var"],
                        state[prefix + ".weight"], state[prefix + ".bias"], False, 0.0, 1e-5)


def _bottleneck(state, prefix, x, stride):
    out = F.relu(_bn(state, prefix + ".bn1", F.conv2d(x, state[prefix + ".conv1.weight"])))
    out = F.relu(_bn(state, prefix + ".bn2", F.conv2d(out, state[prefix + ".conv2.weight"],
                                                       padding=1)))
    if stride > 1:
        out = F.avg_pool2d(out, stride)
    out = _bn(state, prefix + ".bn3", F.conv2d(out, state[prefix + ".conv3.weight"]))
    if prefix + ".downsample.0.weight" in state:
        shortcut = F.avg_pool2d(x, stride) if stride > 1 else x
        x = _bn(state, prefix + ".downsample.1",
                F.conv2d(shortcut, state[prefix + ".downsample.0.weight"]))
    return F.relu(out + x)


def resnet_map(state, x: torch.Tensor, layers) -> torch.Tensor:
    """visual.* stem and stages on normalised pixels: (N, 3, H, W) -> (N, C, h, w)."""
    for index, stride in enumerate((2, 1, 1)):
        x = F.relu(_bn(state, f"visual.bn{index + 1}",
                       F.conv2d(x, state[f"visual.conv{index + 1}.weight"], stride=stride,
                                padding=1)))
    x = F.avg_pool2d(x, 2)
    for stage, (blocks, stride) in enumerate(zip(layers, (1, 2, 2, 2))):
        for block in range(blocks):
            x = _bottleneck(state, f"visual.layer{stage + 1}.{block}", x,
                            stride if block == 0 else 1)
    return x


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def attention_pool(state, feature_map: np.ndarray, heads: int,
                   prefix="visual.attnpool") -> np.ndarray:
    """AttentionPool2d without positional embedding, float64: (N, C, h, w) -> (N, out)."""
    p = {k[len(prefix) + 1:]: v.double().numpy() for k, v in state.items()
         if k.startswith(prefix + ".")}
    n, c = feature_map.shape[:2]
    tokens = feature_map.reshape(n, c, -1).transpose(0, 2, 1).astype(np.float64)  # (N, HW, C)
    tokens = np.concatenate([tokens.mean(axis=1, keepdims=True), tokens], axis=1)
    q = tokens[:, :1] @ p["q_proj.weight"].T + p["q_proj.bias"]
    k = tokens @ p["k_proj.weight"].T + p["k_proj.bias"]
    v = tokens @ p["v_proj.weight"].T + p["v_proj.bias"]
    d = c // heads
    out = np.empty((n, c))
    for h in range(heads):
        cols = slice(h * d, (h + 1) * d)
        weights = _softmax(q[:, :, cols] @ k[:, :, cols].transpose(0, 2, 1) / np.sqrt(d))
        out[:, cols] = (weights @ v[:, :, cols])[:, 0]
    return out @ p["c_proj.weight"].T + p["c_proj.bias"]


def _layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * weight + bias


def text_features(state, prompts: np.ndarray, eot_index, heads: int) -> np.ndarray:
    """OpenAI's text path from embeddings, float64: (P, L, W) -> (P, E)."""
    p = {k: v.double().numpy() for k, v in state.items()}
    x = np.asarray(prompts, np.float64) + p["positional_embedding"]
    length, width = x.shape[1:]
    d = width // heads
    blocks = sorted({int(k.split(".")[2]) for k in p if k.startswith("transformer.resblocks.")})
    future = np.triu(np.ones((length, length), bool), 1)
    for b in blocks:
        pre = f"transformer.resblocks.{b}."
        h = _layer_norm(x, p[pre + "ln_1.weight"], p[pre + "ln_1.bias"])
        qkv = h @ p[pre + "attn.in_proj_weight"].T + p[pre + "attn.in_proj_bias"]
        q, k, v = np.split(qkv, 3, axis=-1)
        attended = np.empty_like(q)
        for head in range(heads):
            cols = slice(head * d, (head + 1) * d)
            scores = q[..., cols] @ k[..., cols].transpose(0, 2, 1) / np.sqrt(d)
            scores[:, future] = -np.inf
            attended[..., cols] = _softmax(scores) @ v[..., cols]
        x = x + attended @ p[pre + "attn.out_proj.weight"].T + p[pre + "attn.out_proj.bias"]
        h = _layer_norm(x, p[pre + "ln_2.weight"], p[pre + "ln_2.bias"])
        h = h @ p[pre + "mlp.c_fc.weight"].T + p[pre + "mlp.c_fc.bias"]
        h = h / (1 + np.exp(-1.702 * h))
        x = x + h @ p[pre + "mlp.c_proj.weight"].T + p[pre + "mlp.c_proj.bias"]
    x = _layer_norm(x, p["ln_final.weight"], p["ln_final.bias"])
    return x[np.arange(len(x)), np.asarray(eot_index)] @ p["text_projection"]


def good_probability(image_features, text_features_, logit_scale: float) -> np.ndarray:
    """softmax(exp(s) cos(img, (good, bad)))[good] in float64: (N, E), (2, E) -> (N,)."""
    img = np.asarray(image_features, np.float64)
    txt = np.asarray(text_features_, np.float64)
    img = img / np.linalg.norm(img, axis=1, keepdims=True)
    txt = txt / np.linalg.norm(txt, axis=1, keepdims=True)
    logits = np.exp(logit_scale) * img @ txt.T
    return 1.0 / (1.0 + np.exp(logits[:, 1] - logits[:, 0]))
