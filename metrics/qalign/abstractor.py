"""The mPLUG-Owl2 visual abstractor, as `visual_encoder.py` builds it.

64 learned queries cross-attend to the vision tokens; the result is projected to the
language model's width and a learned end-of-image token is appended (65 tokens per
image at full size). Parameter names are the official ones under
`model.visual_abstractor.`. Read from the official code and kept:
  - every layer attends from norm1(queries) to concat(norm1(queries), normk(vision
    tokens)); the vision tokens given to each layer are the vision model's output, not
    updated between layers;
  - keys get fixed sine-cosine tables (1-D over the queries, 2-D over the vision grid
    with a zero row for the class token) added before the projection, queries get the
    1-D one, values none; the tables are persistent buffers (so in the state dict);
  - the residual of the attention output is the *normalised* queries;
  - norm1, normk and norm2 use LayerNorm's default eps 1e-5, the SwiGLU MLP's inner
    ffn_ln the configured eps;
  - softmax in the input dtype; the all-ones attention masks add zeros and are omitted.
"""

import math

import numpy as np
import torch
from torch import nn

from metrics.qalign import config as config_lib


def sincos_1d(dim: int, positions: np.ndarray) -> np.ndarray:
    """(M, dim) float32: sin of positions x 1/10000^(2i/dim) then cos (the MAE table)."""
    omega = np.arange(dim // 2, dtype=np.float32)
    omega /= dim / 2.0
    omega = 1.0 / 10000 ** omega
    angles = np.einsum("m,d->md", positions.reshape(-1), omega)
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=1)


def sincos_2d_with_cls(dim: int, grid: int) -> np.ndarray:
    """(1 + grid^2, dim): a zero class row, then per cell (row-major) the table of its
    column index in the first half and of its row index in the second half."""
    cols, rows = np.meshgrid(np.arange(grid, dtype=np.float32),
                             np.arange(grid, dtype=np.float32))
    table = np.concatenate([sincos_1d(dim // 2, cols), sincos_1d(dim // 2, rows)], axis=1)
    return np.concatenate([np.zeros([1, dim]), table], axis=0)


def position_tables(cfg: config_lib.AbstractorConfig):
    """(q_pos_embed, k_pos_embed) as float32 tensors."""
    queries = np.arange(cfg.num_learnable_queries, dtype=np.float32)
    return (torch.from_numpy(sincos_1d(cfg.hidden_size, queries)).float(),
            torch.from_numpy(sincos_2d_with_cls(cfg.hidden_size, cfg.grid_size)).float())


class CrossAttention(nn.Module):
    def __init__(self, cfg: config_lib.AbstractorConfig):
        super().__init__()
        self.heads = cfg.num_attention_heads
        self.head_dim = cfg.hidden_size // self.heads
        self.query = nn.Linear(cfg.hidden_size, cfg.hidden_size)
        self.key = nn.Linear(cfg.encoder_hidden_size, cfg.hidden_size)
        self.value = nn.Linear(cfg.encoder_hidden_size, cfg.hidden_size)
        q_pos, k_pos = position_tables(cfg)
        self.register_buffer("q_pos_embed", q_pos)
        self.register_buffer("k_pos_embed", k_pos)

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        return x.view(*x.shape[:-1], self.heads, self.head_dim).permute(0, 2, 1, 3)

    def forward(self, queries: torch.Tensor, memory: torch.Tensor) -> torch.Tensor:
        dtype = queries.dtype
        q_pos = self.q_pos_embed.unsqueeze(0).to(dtype)
        kv_pos = torch.cat([self.q_pos_embed, self.k_pos_embed], dim=0).unsqueeze(0).to(dtype)
        key = self._split(self.key(memory + kv_pos))
        value = self._split(self.value(memory))
        query = self._split(self.query(queries + q_pos))
        scores = torch.matmul(query, key.transpose(-1, -2)) / math.sqrt(self.head_dim)
        context = torch.matmul(torch.softmax(scores, dim=-1), value)
        return context.permute(0, 2, 1, 3).reshape(*queries.shape[:-1], -1)


class SwiGluMlp(nn.Module):
    def __init__(self, cfg: config_lib.AbstractorConfig):
        super().__init__()
        self.w1 = nn.Linear(cfg.hidden_size, cfg.intermediate_size)
        self.w2 = nn.Linear(cfg.intermediate_size, cfg.hidden_size)
        self.w3 = nn.Linear(cfg.hidden_size, cfg.intermediate_size)
        self.ffn_ln = nn.LayerNorm(cfg.intermediate_size, eps=cfg.layer_norm_eps)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w2(self.ffn_ln(nn.functional.silu(self.w1(x)) * self.w3(x)))


class CrossOutput(nn.Module):
    def __init__(self, cfg: config_lib.AbstractorConfig):
        super().__init__()
        self.out_proj = nn.Linear(cfg.hidden_size, cfg.hidden_size)
        self.norm2 = nn.LayerNorm(cfg.hidden_size)
        self.mlp = SwiGluMlp(cfg)

    def forward(self, context: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        x = residual + self.out_proj(context)
        return x + self.mlp(self.norm2(x))


class CrossAttentionBlock(nn.Module):
    def __init__(self, cfg: config_lib.AbstractorConfig):
        super().__init__()
        self.attention = CrossAttention(cfg)
        self.output = CrossOutput(cfg)
        self.norm1 = nn.LayerNorm(cfg.hidden_size)
        self.normk = nn.LayerNorm(cfg.hidden_size)

    def forward(self, queries: torch.Tensor, vision: torch.Tensor) -> torch.Tensor:
        queries = self.norm1(queries)
        memory = torch.cat([queries, self.normk(vision)], dim=1)
        return self.output(self.attention(queries, memory), queries)


class AbstractorLayer(nn.Module):
    def __init__(self, cfg: config_lib.AbstractorConfig):
        super().__init__()
        self.crossattention = CrossAttentionBlock(cfg)

    def forward(self, queries: torch.Tensor, vision: torch.Tensor) -> torch.Tensor:
        return self.crossattention(queries, vision)


class AbstractorEncoder(nn.Module):
    def __init__(self, cfg: config_lib.AbstractorConfig):
        super().__init__()
        self.layers = nn.ModuleList(AbstractorLayer(cfg) for _ in range(cfg.num_hidden_layers))


class VisualAbstractor(nn.Module):
    """vision tokens (N, L, C) -> language-model tokens (N, queries + 1, hidden)."""

    def __init__(self, cfg: config_lib.AbstractorConfig, language_hidden_size: int):
        super().__init__()
        self.encoder = AbstractorEncoder(cfg)
        self.visual_fc = nn.Linear(cfg.hidden_size, language_hidden_size)
        self.query_embeds = nn.Parameter(torch.zeros(1, cfg.num_learnable_queries,
                                                     cfg.hidden_size))
        self.vit_eos = nn.Parameter(torch.zeros(1, 1, language_hidden_size))

    def forward(self, vision: torch.Tensor) -> torch.Tensor:
        queries = self.query_embeds.repeat(vision.shape[0], 1, 1)
        for layer in self.encoder.layers:
            queries = layer(queries, vision)
        out = self.visual_fc(queries)
        return torch.cat([out, self.vit_eos.repeat(out.shape[0], 1, 1)], dim=1)
