"""Tag2Text's captioner (Huang et al. 2023), the `Tag2Text_Caption` of
Vchitect/VBench@45e79ec vbench/third_party/tag2Text/tag2text.py, inference with
`tag_input=None` (the tags come from the image), written here with its parameter names.

The parts and how `caption` runs them:

* `visual_encoder`: Swin-B (swin.py) -> (B, 1 + 144, 1024) at 384 px.
* tagging (the Query2Label-style head): `label_embed` (classes x 768) is the query of
  `vision_multi`, 2 "mlr" layers (cross-attention to the image tokens, 4 heads, then
  feed-forward; no embeddings, no self-attention); `fc` (W: 1 x classes x 768, b:
  1 x classes) gives logit_c = sum_d W[c, d] x[c, d] + b[c]. A tag is on when
  sigmoid(logit) > threshold (0.7, strictly), with the classes in `deleted_tags` forced
  off; the tags on, in class order, joined by " | ".
* `tag_encoder`: BERT-base with cross-attention to the image tokens (12 heads) on the tag
  text: "[ENC]" in place of "[CLS]", padded/truncated to 40 tokens. Its layers 0 and 1
  share their cross-attention, feed-forward and output weights with `vision_multi`'s
  layers 0 and 1 (upstream's tie_encoder_decoder_weights(tag_encoder, vision_multi, '',
  ' '): the skip key ' ' never matches, so everything the two have in common is tied),
  each with its own head count.
* `text_decoder`: BERT-base LM (causal) with cross-attention to the tag encoder's
  output, no mask on it (upstream passes encoder_attention_mask=None: padded tag tokens
  are attended to), prompted with "[DEC] a picture of"; beam search (beam_search.py).
* The batch quirk, reproduced: upstream repeats every image's tag-encoder input per beam
  (B x beams rows), and transformers 4.33.2's generate repeats every tensor of
  model_kwargs once more per beam (B x beams^2 rows); med.py's attention then keeps the
  first B x beams rows. Beam row r therefore attends to image floor(r / beams^2), i.e.
  caption i is generated from image floor(i / beams)'s tag encoding (3 beams, 16 frames:
  captions of frames 0,0,0,1,1,1,...,5). captioner.caption does exactly that.
* The caption: the token ids decoded without special tokens, then its first
  len(prompt) characters dropped.
"""

import dataclasses
from typing import Sequence

import numpy as np
import torch
from torch import nn

from metrics.tag2text import bert
from metrics.tag2text import swin


@dataclasses.dataclass(frozen=True)
class Architecture:
    image_size: int = 384             # config_swinB_384.json image_res
    embed_dim: int = 128
    depths: Sequence[int] = (2, 2, 18, 2)
    num_heads: Sequence[int] = (4, 8, 16, 32)
    window_size: int = 12
    text: bert.BertConfig = bert.BertConfig()  # med_config.json (vocab 30524)
    tag_head: bert.BertConfig = bert.BertConfig(vocab_size=30522, num_hidden_layers=2,
                                                num_attention_heads=4)  # q2l_config.json
    num_classes: int = 3429

    @property
    def vision_width(self) -> int:
        return self.embed_dim * 2 ** (len(self.depths) - 1)


@dataclasses.dataclass(frozen=True)
class Settings:
    """`Tag2Text_Caption.generate`'s defaults, which scene.py's call keeps."""

    threshold: float = 0.7
    deleted_tags: Sequence[int] = (127, 3351, 3265, 3338, 3355, 3359)  # delete_tag_index
    num_beams: int = 3
    max_length: int = 30
    min_length: int = 10
    repetition_penalty: float = 1.0
    prompt: str = "a picture of "
    tag_max_length: int = 40


class TagHead(nn.Module):
    """`vision_multi`: the mlr layers only (its embeddings and self-attention deleted)."""

    def __init__(self, config: bert.BertConfig):
        super().__init__()
        self.encoder = bert.Encoder(config, self_attention=False)


class GroupWiseLinear(nn.Module):
    def __init__(self, classes: int, width: int):
        super().__init__()
        self.W = nn.Parameter(torch.zeros(1, classes, width))
        self.b = nn.Parameter(torch.zeros(1, classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return (self.W * x).sum(-1) + self.b


def _tie(tag_layer: bert.Layer, head_layer: bert.Layer) -> None:
    """Share every weight of `head_layer` with `tag_layer` (module objects, not heads)."""
    for name in ("query", "key", "value"):
        setattr(tag_layer.crossattention.self, name,
                getattr(head_layer.crossattention.self, name))
    tag_layer.crossattention.output = head_layer.crossattention.output
    tag_layer.intermediate = head_layer.intermediate
    tag_layer.output = head_layer.output


class Tag2Text(nn.Module):
    def __init__(self, arch: Architecture = Architecture()):
        super().__init__()
        self.arch = arch
        self.visual_encoder = swin.SwinTransformer(
            arch.image_size, arch.embed_dim, arch.depths, arch.num_heads, arch.window_size)
        self.text_decoder = bert.TextDecoder(
            dataclasses.replace(arch.text, encoder_width=arch.text.hidden_size))
        self.tag_encoder = bert.TextModel(
            dataclasses.replace(arch.text, encoder_width=arch.vision_width))
        self.vision_multi = TagHead(
            dataclasses.replace(arch.tag_head, encoder_width=arch.vision_width))
        self.label_embed = nn.Embedding(arch.num_classes, arch.tag_head.hidden_size)
        self.fc = GroupWiseLinear(arch.num_classes, arch.tag_head.hidden_size)
        for tag_layer, head_layer in zip(self.tag_encoder.encoder.layer,
                                         self.vision_multi.encoder.layer):
            _tie(tag_layer, head_layer)
        self.eval()

    def tag_logits(self, image_embeds: torch.Tensor) -> torch.Tensor:
        queries = self.label_embed.weight.unsqueeze(0).repeat(image_embeds.shape[0], 1, 1)
        return self.fc(self.vision_multi.encoder(queries, None, image_embeds))


def tags_on(logits: torch.Tensor, settings: Settings) -> np.ndarray:
    """(B, classes) 0/1 float: sigmoid(logit) > threshold, the deleted classes off."""
    on = torch.where(torch.sigmoid(logits) > settings.threshold, 1.0, 0.0).cpu().numpy()
    on[:, list(settings.deleted_tags)] = 0
    return on

