"""Test support: seeded random Tag2Text checkpoints in the official file format
({"model": state dict} with the official key names, including the buffers the official
model saves and its loader drops or ignores), at the official sizes or tiny ones, and a
small bert-style vocab.txt.

The values are what `seeded_state_dict` draws from one torch.Generator, key by key in
the model's order (so the same seed gives the same file on any machine): Linear and
embedding weights N(0, std), biases N(0, 0.02), LayerNorm weights 1 + N(0, 0.1) and
biases N(0, 0.1), relative position tables N(0, 0.5); tied tag-encoder weights are the
same tensors as their vision_multi twins. Three knobs make the captioner's decisions
non-trivial on random weights: `tag_bias` shifts every tagging logit (so only a few tags
pass the 0.7 threshold) and `forced_tags` lifts chosen classes far above it (e.g. a
deleted one); `decoder_std` makes the next-token distribution peaked (fewer near-ties in
beam search); `eos_bias` makes [SEP] a competitor once the minimum length is reached.
"""

import dataclasses
import pathlib
from typing import Dict, Sequence

import torch

from metrics.tag2text import bert
from metrics.tag2text import model as model_lib
from metrics.tag2text import swin

# [PAD] 0, [unused0..98], [UNK] 100, [CLS] 101, [SEP] 102, [MASK] 103 as in
# bert-base-uncased's vocab.txt, then a few words and pieces.
_SPECIALS = ["[PAD]"] + [f"[unused{i}]" for i in range(99)] + ["[UNK]", "[CLS]", "[SEP]",
                                                                 "[MASK]"]
WORDS = ["a", "picture", "of", "the", "man", "dog", "street", "city", "sky", "tree",
         "grass", "water", "beach", "road", "car", "building", "in", "on", "with", "and",
         ".", ",", "'", "s", "##s", "##ing", "bar", "barn", "kitchen", "alley", "house"]
VOCAB = _SPECIALS + WORDS
SEP_ID = 102

# The official geometry (384 px, window 12: shifted windows in stages 1-3, one unshifted
# 12x12 window in stage 4) at tiny widths and depths.
TINY = model_lib.Architecture(
    image_size=384, embed_dim=8, depths=(2, 2, 2, 2), num_heads=(1, 2, 2, 4), window_size=12,
    text=bert.BertConfig(vocab_size=len(VOCAB) + 2, hidden_size=32, num_hidden_layers=2,
                         num_attention_heads=2, intermediate_size=64,
                         max_position_embeddings=64),
    tag_head=bert.BertConfig(vocab_size=len(VOCAB), hidden_size=32, num_hidden_layers=2,
                             num_attention_heads=4, intermediate_size=64,
                             max_position_embeddings=64),
    num_classes=3429)


@dataclasses.dataclass(frozen=True)
class Knobs:
    weight_std: float = 0.02
    tag_bias: float = 0.0
    forced_tags: Sequence[int] = ()
    decoder_std: float = 0.02
    eos_bias: float = 0.0


def _buffers(arch: model_lib.Architecture) -> Dict[str, torch.Tensor]:
    """The persistent buffers the official modules save (and its loader drops/ignores)."""
    out = {}
    grid = arch.image_size // 4
    for i, depth in enumerate(arch.depths):
        g = grid // 2 ** i
        window = min(g, arch.window_size)
        for j in range(depth):
            p = f"visual_encoder.layers.{i}.blocks.{j}.attn"
            out[p + ".relative_position_index"] = swin.relative_position_index(window)
            if j % 2 == 1 and g > arch.window_size:
                out[f"visual_encoder.layers.{i}.blocks.{j}.attn_mask"] = swin.shift_mask(
                    g, g, window, window // 2)
    positions = torch.arange(arch.text.max_position_embeddings)[None]
    out["text_decoder.bert.embeddings.position_ids"] = positions
    out["tag_encoder.embeddings.position_ids"] = positions.clone()
    return out


def seeded_state_dict(arch: model_lib.Architecture, seed: int,
                      knobs: Knobs = Knobs()) -> Dict[str, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    with torch.device("meta"):
        template = model_lib.Tag2Text(arch)
    state: Dict[str, torch.Tensor] = {}
    drawn: Dict[int, torch.Tensor] = {}
    for name, param in template.named_parameters(remove_duplicate=False):
        pid = id(param)
        if pid in drawn and name != "text_decoder.cls.predictions.decoder.weight":
            # a tied weight: the same values under both names. The LM decoder weight is
            # drawn on its own (decoder_std) though tied to the word embeddings: the file
            # then holds two different copies, and the loader must keep decoder.weight.
            state[name] = drawn[pid]
            continue
        shape = tuple(param.shape)
        if "LayerNorm" in name or ".norm" in name or name.startswith("visual_encoder.norm"):
            base = 1.0 if name.endswith("weight") else 0.0
            value = base + 0.1 * torch.randn(shape, generator=gen)
        elif name.endswith("relative_position_bias_table"):
            value = 0.5 * torch.randn(shape, generator=gen)
        elif name == "text_decoder.cls.predictions.decoder.weight":
            value = knobs.decoder_std * torch.randn(shape, generator=gen)
        elif name == "fc.W":
            value = torch.randn(shape, generator=gen) / shape[-1] ** 0.5
        elif name == "fc.b":
            value = knobs.tag_bias + 0.1 * torch.randn(shape, generator=gen)
            value[0, list(knobs.forced_tags)] += 100.0
        elif name.endswith("bias") or name.endswith(".b"):
            value = 0.02 * torch.randn(shape, generator=gen)
            if name == "text_decoder.cls.predictions.bias":
                value[SEP_ID] += knobs.eos_bias
        else:
            value = knobs.weight_std * torch.randn(shape, generator=gen)
        drawn[pid] = value
        state[name] = value
    # med.py's LM head holds its bias twice (decoder.bias is the same Parameter).
    state["text_decoder.cls.predictions.decoder.bias"] = state[
        "text_decoder.cls.predictions.bias"]
    state.update(_buffers(arch))
    return state


def write_checkpoint(path: pathlib.Path, arch: model_lib.Architecture = TINY, seed: int = 0,
                     knobs: Knobs = Knobs()) -> pathlib.Path:
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": seeded_state_dict(arch, seed, knobs)}, path)
    return path


def write_vocab(path: pathlib.Path) -> pathlib.Path:
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    return path
