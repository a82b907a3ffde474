"""OpenAI CLIP's text transformer, fed with prompt embeddings instead of token ids.

Reproduces `Transformer` / `ResidualAttentionBlock` / `QuickGELU` of OpenAI CLIP's
`clip/model.py` (pyiqa keeps a copy in `pyiqa/archs/clip_model.py`) with the same
module names (`resblocks.N.attn.in_proj_weight`, `.ln_1`, `.mlp.c_fc`, `.mlp.c_proj`,
`.ln_2`), and the text path of pyiqa's CLIP-IQA+ `PromptLearner.forward`:

    x = prompt_embeddings + positional_embedding          # (P, 77, width)
    x = transformer(x)                                    # pre-LN blocks, causal mask
    x = ln_final(x)[p, eot_index[p]] @ text_projection    # the EOT token's state

Each block is `x + attn(ln_1(x))` then `x + mlp(ln_2(x))`, the MLP being
Linear(w, 4w) -> QuickGELU (x * sigmoid(1.702 x)) -> Linear(4w, w); attention is
torch's nn.MultiheadAttention (sequence-first, as OpenAI's) with the additive causal
mask (-inf above the diagonal) over the 77-token context; LayerNorm eps is 1e-5.

Why not transformers' CLIPTextModel: CLIP-IQA+ splices learned context vectors between
token embeddings, so the text tower must start from embeddings, and it pools at the
position of the *first* EOT token of the original token ids (`argmax`, the EOT id
49407 being the largest). CLIPTextModel takes token ids, finds the pooled position
from `eos_token_id` itself, stores q/k/v as separate projections (OpenAI's checkpoint
has one fused `in_proj_weight`) and would need a key conversion plus a bypass of its
embedding layer. Thirty lines of own code reproduce the official graph, kernels
included, with OpenAI's own key names.
"""

import collections

import torch
from torch import nn


class QuickGELU(nn.Module):
    """x * sigmoid(1.702 x), the activation CLIP was trained with."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.sigmoid(1.702 * x)


class ResidualAttentionBlock(nn.Module):
    """Pre-LayerNorm block: causal self-attention, then a QuickGELU MLP."""

    def __init__(self, width: int, heads: int):
        super().__init__()
        self.attn = nn.MultiheadAttention(width, heads)
        self.ln_1 = nn.LayerNorm(width)
        self.mlp = nn.Sequential(collections.OrderedDict([
            ("c_fc", nn.Linear(width, width * 4)),
            ("gelu", QuickGELU()),
            ("c_proj", nn.Linear(width * 4, width)),
        ]))
        self.ln_2 = nn.LayerNorm(width)

    def forward(self, x: torch.Tensor, attn_mask: torch.Tensor) -> torch.Tensor:
        """x: (L, N, width), sequence first."""
        hidden = self.ln_1(x)
        x = x + self.attn(hidden, hidden, hidden, need_weights=False, attn_mask=attn_mask)[0]
        return x + self.mlp(self.ln_2(x))


class Transformer(nn.Module):
    """`layers` residual attention blocks of `width` channels and `heads` heads."""

    def __init__(self, width: int, layers: int, heads: int):
        super().__init__()
        self.resblocks = nn.Sequential(*[ResidualAttentionBlock(width, heads)
                                         for _ in range(layers)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(L, N, width) -> (L, N, width) under the causal mask."""
        mask = causal_mask(x.shape[0], x.dtype, x.device)
        for block in self.resblocks:
            x = block(x, mask)
        return x


def causal_mask(length: int, dtype=torch.float32, device=None) -> torch.Tensor:
    """OpenAI's build_attention_mask: 0 on and below the diagonal, -inf above."""
    mask = torch.full((length, length), float("-inf"), dtype=dtype, device=device)
    return mask.triu_(1)


def encode_embeddings(prompts: torch.Tensor, eot_index: torch.Tensor,
                      positional_embedding: torch.Tensor, transformer: Transformer,
                      ln_final: nn.LayerNorm, text_projection: torch.Tensor) -> torch.Tensor:
    """Text features of prompts given as token embeddings.

    Args:
        prompts: (P, L, width) embeddings (token embeddings, learned context spliced in).
        eot_index: (P,) position of each prompt's end-of-text token.
        positional_embedding: (L, width).
        transformer, ln_final, text_projection: The text tower's weights.

    Returns:
        (P, embed_dim) unnormalised text features.
    """
    x = prompts + positional_embedding.to(prompts.dtype)
    x = transformer(x.permute(1, 0, 2)).permute(1, 0, 2)
    x = ln_final(x)
    return x[torch.arange(x.shape[0], device=x.device), eot_index] @ text_projection
