"""The modality-adaptive LLaMA decoder layer of mPLUG-Owl2 (`modeling_llama2.py`).

A LLaMA-2 layer in which the key and value projections and both RMSNorms are
"multiway": one module per modality (0 = text, 1 = image tokens), chosen per token by
the modality indicator. Parameter names are the official ones
(`self_attn.k_proj.multiway.<m>.weight`, `input_layernorm.multiway.<m>.weight`, ...).
The query/output projections, the SwiGLU MLP, RMSNorm and the rotary embedding are the
same functions as transformers' LLaMA pieces, which are used here. Attention is
scaled_dot_product_attention with a causal mask and no padding, as the official code
loaded through `from_pretrained` runs it (transformers 4.36 picks its SDPA attention;
every sequence of a batch has the same length, so the mask is causal only).
"""

import torch
from torch import nn
from torch.nn import functional as F
from transformers.models.llama import modeling_llama

from metrics.qalign import config as config_lib

TEXT, IMAGE = 0, 1


def hf_llama_config(cfg: config_lib.QAlignConfig):
    """The transformers LlamaConfig the shared LLaMA pieces are built from."""
    from transformers import LlamaConfig  # pylint: disable=import-outside-toplevel
    return LlamaConfig(
        vocab_size=cfg.vocab_size, hidden_size=cfg.hidden_size,
        intermediate_size=cfg.intermediate_size, num_hidden_layers=cfg.num_hidden_layers,
        num_attention_heads=cfg.num_attention_heads, num_key_value_heads=cfg.kv_heads,
        hidden_act=cfg.hidden_act, max_position_embeddings=cfg.max_position_embeddings,
        rms_norm_eps=cfg.rms_norm_eps, rope_theta=cfg.rope_theta,
        attention_bias=cfg.attention_bias, mlp_bias=False)


class Multiway(nn.Module):
    """One module per modality; each token goes through its modality's module."""

    def __init__(self, build, ways: int = 2):
        super().__init__()
        self.multiway = nn.ModuleList(build() for _ in range(ways))

    def forward(self, x: torch.Tensor, modality: torch.Tensor) -> torch.Tensor:
        out = None
        for index, module in enumerate(self.multiway):
            where = modality.eq(index).nonzero(as_tuple=True)
            if where[0].numel():
                part = module(x[where])
                if out is None:
                    out = x.new_empty(*x.shape[:-1], part.shape[-1])
                out[where] = part
        return out


class Attention(nn.Module):
    def __init__(self, cfg: config_lib.QAlignConfig):
        super().__init__()
        self.heads, self.kv_heads = cfg.num_attention_heads, cfg.kv_heads
        self.head_dim = cfg.hidden_size // self.heads
        width, bias = cfg.hidden_size, cfg.attention_bias
        self.q_proj = nn.Linear(width, self.heads * self.head_dim, bias=bias)
        self.k_proj = Multiway(lambda: nn.Linear(width, self.kv_heads * self.head_dim, bias=bias))
        self.v_proj = Multiway(lambda: nn.Linear(width, self.kv_heads * self.head_dim, bias=bias))
        self.o_proj = nn.Linear(self.heads * self.head_dim, width, bias=bias)

    def forward(self, x, modality, cos, sin):
        batch, length, _ = x.shape

        def heads(t, count):
            return t.view(batch, length, count, self.head_dim).transpose(1, 2)

        q = heads(self.q_proj(x), self.heads)
        k = heads(self.k_proj(x, modality), self.kv_heads)
        v = heads(self.v_proj(x, modality), self.kv_heads)
        q, k = modeling_llama.apply_rotary_pos_emb(q, k, cos, sin)
        groups = self.heads // self.kv_heads
        k, v = modeling_llama.repeat_kv(k, groups), modeling_llama.repeat_kv(v, groups)
        out = F.scaled_dot_product_attention(q, k, v, is_causal=length > 1)
        return self.o_proj(out.transpose(1, 2).reshape(batch, length, -1))


class DecoderLayer(nn.Module):
    def __init__(self, cfg: config_lib.QAlignConfig, hf_config):
        super().__init__()
        width, eps = cfg.hidden_size, cfg.rms_norm_eps
        self.self_attn = Attention(cfg)
        self.mlp = modeling_llama.LlamaMLP(hf_config)
        self.input_layernorm = Multiway(lambda: modeling_llama.LlamaRMSNorm(width, eps=eps))
        self.post_attention_layernorm = Multiway(
            lambda: modeling_llama.LlamaRMSNorm(width, eps=eps))

    def forward(self, x, modality, cos, sin):
        x = x + self.self_attn(self.input_layernorm(x, modality), modality, cos, sin)
        return x + self.mlp(self.post_attention_layernorm(x, modality))


def rotary(hf_config) -> nn.Module:
    return modeling_llama.LlamaRotaryEmbedding(hf_config)
