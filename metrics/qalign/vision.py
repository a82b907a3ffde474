"""The mPLUG-Owl2 vision model (a CLIP-style ViT), as `visual_encoder.py` builds it.

Parameter names are the official ones under `model.vision_model.`. Read from the
official code and kept:
  - the patch projection is a bias-free conv; a class token is prepended and the first
    N+1 rows of the learned position table are added, then a pre-LayerNorm;
  - pre-norm blocks; the fused qkv projection is laid out per head as (head, q|k|v,
    head_dim), not (q|k|v, head, head_dim);
  - attention is matmul -> scale -> softmax in the input dtype (no fp32 upcast);
  - QuickGELU MLP (x * sigmoid(1.702 x));
  - the output is post_layernorm of every token (the class token included).
"""

import torch
from torch import nn

from metrics.qalign import config as config_lib


class Embeddings(nn.Module):
    def __init__(self, cfg: config_lib.VisionConfig):
        super().__init__()
        self.cls_token = nn.Parameter(torch.zeros(1, 1, cfg.hidden_size))
        self.patch_embed = nn.Conv2d(3, cfg.hidden_size, kernel_size=cfg.patch_size,
                                     stride=cfg.patch_size, bias=False)
        self.position_embedding = nn.Parameter(torch.zeros(1, cfg.grid ** 2 + 1,
                                                           cfg.hidden_size))
        self.pre_layernorm = nn.LayerNorm(cfg.hidden_size, eps=cfg.layer_norm_eps)

    def forward(self, pixels: torch.Tensor) -> torch.Tensor:
        patches = self.patch_embed(pixels).flatten(2).transpose(1, 2)
        cls = self.cls_token.expand(pixels.shape[0], 1, -1).to(patches.dtype)
        tokens = torch.cat([cls, patches], dim=1)
        tokens = tokens + self.position_embedding[:, :tokens.shape[1]].to(patches.dtype)
        return self.pre_layernorm(tokens)


class Attention(nn.Module):
    def __init__(self, cfg: config_lib.VisionConfig):
        super().__init__()
        self.heads = cfg.num_attention_heads
        self.head_dim = cfg.hidden_size // self.heads
        self.scale = self.head_dim ** -0.5
        self.query_key_value = nn.Linear(cfg.hidden_size, 3 * cfg.hidden_size)
        self.dense = nn.Linear(cfg.hidden_size, cfg.hidden_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, width = x.shape
        qkv = self.query_key_value(x).reshape(batch, length, self.heads, 3, self.head_dim)
        q, k, v = qkv.permute(3, 0, 2, 1, 4)
        probs = torch.softmax(torch.matmul(q, k.transpose(-1, -2)) * self.scale, dim=-1)
        context = torch.matmul(probs, v).permute(0, 2, 1, 3).reshape(batch, length, width)
        return self.dense(context)


class Mlp(nn.Module):
    def __init__(self, cfg: config_lib.VisionConfig):
        super().__init__()
        self.fc1 = nn.Linear(cfg.hidden_size, cfg.intermediate_size)
        self.fc2 = nn.Linear(cfg.intermediate_size, cfg.hidden_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.fc1(x)
        return self.fc2(x * torch.sigmoid(1.702 * x))


class EncoderLayer(nn.Module):
    def __init__(self, cfg: config_lib.VisionConfig):
        super().__init__()
        self.input_layernorm = nn.LayerNorm(cfg.hidden_size, eps=cfg.layer_norm_eps)
        self.self_attn = Attention(cfg)
        self.post_attention_layernorm = nn.LayerNorm(cfg.hidden_size, eps=cfg.layer_norm_eps)
        self.mlp = Mlp(cfg)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.self_attn(self.input_layernorm(x)) + x
        return self.mlp(self.post_attention_layernorm(x)) + x


class Encoder(nn.Module):
    def __init__(self, cfg: config_lib.VisionConfig):
        super().__init__()
        self.layers = nn.ModuleList(EncoderLayer(cfg) for _ in range(cfg.num_hidden_layers))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x)
        return x


class VisionModel(nn.Module):
    """pixels (N, 3, S, S) -> tokens (N, (S/patch)^2 + 1, hidden)."""

    def __init__(self, cfg: config_lib.VisionConfig):
        super().__init__()
        self.embeddings = Embeddings(cfg)
        self.encoder = Encoder(cfg)
        self.post_layernorm = nn.LayerNorm(cfg.hidden_size, eps=cfg.layer_norm_eps)

    def forward(self, pixels: torch.Tensor) -> torch.Tensor:
        return self.post_layernorm(self.encoder(self.embeddings(pixels)))
