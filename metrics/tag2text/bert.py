"""The BERT parts of Tag2Text with cross-attention (BLIP's "med" BERT as Tag2Text ships it,
Vchitect/VBench@45e79ec vbench/third_party/tag2Text/med.py), written here with med.py's
parameter names and arithmetic, inference only.

transformers' BertLMHeadModel is not used: its cross-attention keys/values take the text
width, not `encoder_width` (1024 here, Swin-B's), and it has no "mlr" layer (cross-
attention and feed-forward without self-attention). What med.py computes:

* embeddings: word + absolute position embeddings (no token types), LayerNorm(eps 1e-12);
* attention: q, k, v projections; scores = (q @ k^T) / sqrt(head_dim) (divided AFTER the
  product); the mask added as (1 - mask) * -10000 (BertModel.get_extended_attention_mask;
  an all-ones mask adds -0.0, i.e. nothing, so it is not added); softmax; output dense,
  residual, LayerNorm;
* a layer: self-attention (bidirectional, or causal for the decoder), cross-attention to
  the memory (keys/values from `encoder_width`), feed-forward dense -> exact GELU ->
  dense, residual, LayerNorm. An "mlr" layer (the tagging head) skips the self-attention;
* the LM head: dense, GELU, LayerNorm, then the decoder Linear plus `bias`; the decoder
  weight IS the word embedding table (transformers ties them when med.py's
  BertLMHeadModel is built), so a file's two copies load into one tensor.
"""

import dataclasses
import math
from typing import Optional

import torch
from torch import nn
from torch.nn import functional as F

MASK_VALUE = -10000.0  # med.py: (1.0 - extended_attention_mask) * -10000.0


@dataclasses.dataclass(frozen=True)
class BertConfig:
    """The fields of med_config.json / q2l_config.json that shape the network."""

    vocab_size: int = 30524
    hidden_size: int = 768
    num_hidden_layers: int = 12
    num_attention_heads: int = 12
    intermediate_size: int = 3072
    max_position_embeddings: int = 512
    layer_norm_eps: float = 1e-12
    encoder_width: int = 768


class SelfAttention(nn.Module):
    """med.py's BertSelfAttention (named `self` inside BertAttention)."""

    def __init__(self, config: BertConfig, cross: bool):
        super().__init__()
        self.heads = config.num_attention_heads
        width = config.encoder_width if cross else config.hidden_size
        self.query = nn.Linear(config.hidden_size, config.hidden_size)
        self.key = nn.Linear(width, config.hidden_size)
        self.value = nn.Linear(width, config.hidden_size)

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        b, n, c = x.shape
        return x.view(b, n, self.heads, c // self.heads).permute(0, 2, 1, 3)

    def forward(self, hidden: torch.Tensor, source: torch.Tensor,
                mask: Optional[torch.Tensor]) -> torch.Tensor:
        q = self._split(self.query(hidden))
        k = self._split(self.key(source))
        v = self._split(self.value(source))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
        if mask is not None:
            scores = scores + mask
        context = torch.matmul(scores.softmax(dim=-1), v).permute(0, 2, 1, 3).contiguous()
        return context.view(*context.shape[:2], -1)


class DenseNorm(nn.Module):
    """dense, then LayerNorm(dense(x) + residual): med.py's BertSelfOutput / BertOutput."""

    def __init__(self, width_in: int, config: BertConfig):
        super().__init__()
        self.dense = nn.Linear(width_in, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        return self.LayerNorm(self.dense(x) + residual)


class Attention(nn.Module):
    def __init__(self, config: BertConfig, cross: bool = False):
        super().__init__()
        self.self = SelfAttention(config, cross)
        self.output = DenseNorm(config.hidden_size, config)

    def forward(self, hidden: torch.Tensor, source: torch.Tensor,
                mask: Optional[torch.Tensor]) -> torch.Tensor:
        return self.output(self.self(hidden, source, mask), hidden)


class Intermediate(nn.Module):
    def __init__(self, config: BertConfig):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.intermediate_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.dense(x))


class Layer(nn.Module):
    """One med.py BertLayer; `self_attention=False` is the "mlr" layer (no `attention`)."""

    def __init__(self, config: BertConfig, self_attention: bool = True):
        super().__init__()
        if self_attention:
            self.attention = Attention(config)
        self.crossattention = Attention(config, cross=True)
        self.intermediate = Intermediate(config)
        self.output = DenseNorm(config.intermediate_size, config)

    def forward(self, hidden: torch.Tensor, mask: Optional[torch.Tensor],
                memory: torch.Tensor) -> torch.Tensor:
        if hasattr(self, "attention"):
            hidden = self.attention(hidden, hidden, mask)
        hidden = self.crossattention(hidden, memory, None)
        return self.output(self.intermediate(hidden), hidden)


class Embeddings(nn.Module):
    def __init__(self, config: BertConfig):
        super().__init__()
        self.word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        self.position_embeddings = nn.Embedding(config.max_position_embeddings,
                                                config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(input_ids.shape[1], device=input_ids.device)[None]
        return self.LayerNorm(self.word_embeddings(input_ids)
                              + self.position_embeddings(positions))


class Encoder(nn.Module):
    def __init__(self, config: BertConfig, self_attention: bool = True):
        super().__init__()
        self.layer = nn.ModuleList(Layer(config, self_attention)
                                   for _ in range(config.num_hidden_layers))

    def forward(self, hidden: torch.Tensor, mask: Optional[torch.Tensor],
                memory: torch.Tensor) -> torch.Tensor:
        for layer in self.layer:
            hidden = layer(hidden, mask, memory)
        return hidden


def padding_mask(attention_mask: torch.Tensor) -> torch.Tensor:
    """(B, L) 1/0 -> (B, 1, 1, L) additive: med.py's encoder mask."""
    return (1.0 - attention_mask[:, None, None, :].float()) * MASK_VALUE


def causal_mask(batch: int, length: int, device: torch.device) -> torch.Tensor:
    """(B, 1, L, L) additive: med.py's decoder mask with an all-ones attention mask."""
    ids = torch.arange(length, device=device)
    allowed = (ids[None, None, :].repeat(batch, length, 1) <= ids[None, :, None]).float()
    return (1.0 - allowed[:, None]) * MASK_VALUE


class TextModel(nn.Module):
    """med.py's BertModel(add_pooling_layer=False) with a cross-attending encoder."""

    def __init__(self, config: BertConfig):
        super().__init__()
        self.embeddings = Embeddings(config)
        self.encoder = Encoder(config)

    def forward(self, input_ids: torch.Tensor, mask: Optional[torch.Tensor],
                memory: torch.Tensor) -> torch.Tensor:
        return self.encoder(self.embeddings(input_ids), mask, memory)


class PredictionTransform(nn.Module):
    def __init__(self, config: BertConfig):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.LayerNorm(F.gelu(self.dense(x)))


class Predictions(nn.Module):
    def __init__(self, config: BertConfig):
        super().__init__()
        self.transform = PredictionTransform(config)
        self.decoder = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.bias = nn.Parameter(torch.zeros(config.vocab_size))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.linear(self.transform(x), self.decoder.weight, self.bias)


class LMHead(nn.Module):
    def __init__(self, config: BertConfig):
        super().__init__()
        self.predictions = Predictions(config)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.predictions(x)


class TextDecoder(nn.Module):
    """med.py's BertLMHeadModel: `bert` (causal self-attention) and `cls`."""

    def __init__(self, config: BertConfig):
        super().__init__()
        self.bert = TextModel(config)
        self.cls = LMHead(config)
        # transformers' PreTrainedModel.init_weights ties the output projection to the
        # input embeddings (tie_word_embeddings, BertConfig's default): one Parameter.
        self.cls.predictions.decoder.weight = self.bert.embeddings.word_embeddings.weight

    def forward(self, input_ids: torch.Tensor, memory: torch.Tensor) -> torch.Tensor:
        """(B, L, vocab) logits; every position recomputed (no key/value cache: med.py's
        prepare_inputs_for_generation reads `past`, which transformers 4.33 never
        passes, so upstream recomputes the whole prefix at each step too)."""
        b, n = input_ids.shape
        return self.cls(self.bert(input_ids, causal_mask(b, n, input_ids.device), memory))
