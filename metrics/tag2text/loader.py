"""Loads Tag2Text's captioner from the official file (pins.TAG2TEXT_SWIN_14M) as upstream
does (Vchitect/VBench@45e79ec vbench/third_party/tag2Text/tag2text.py
`load_checkpoint_swinbase`, called by `tag2text_caption(pretrained=..., image_size=384,
vit="swin_b")`):

* the state dict is the file's "model" entry;
* `relative_position_index` and `attn_mask` entries are dropped (the model computes them);
* a `relative_position_bias_table` of another window size would be resampled upstream
  (scipy `interp2d`, cubic: removed from SciPy 1.14); the 384 px file's tables are
  already (2 x 12 - 1)^2 rows, so here a different size is an error, not a resampling;
* upstream then calls load_state_dict(strict=False). Here every tensor the model needs
  must be in the file (a missing one would silently stay random upstream), except that
  a tied weight may come from its twin only. Where the file holds both copies of a
  tied weight, what stays is what upstream's load leaves (it copies module by module in
  registration order, a module's own tensors before its children's): the `vision_multi`
  copy of the tag encoder's shared layers, the LM head's `decoder.weight` for the
  decoder's word embeddings (transformers ties the two), its `decoder.bias` for `bias`.
  Keys that map to nothing (e.g. med.py's `position_ids` buffers, any deleted
  `vision_multi` embeddings/self-attention) are ignored as upstream ignores them, and
  returned in `Loaded.ignored`.
"""

import dataclasses
import os
import pathlib
from typing import Dict, List, Optional

import torch

from metrics.checkpoints import state_dict as state_dict_lib
from metrics.tag2text import model as model_lib
from metrics.tag2text import tokenizer as tokenizer_lib

# Upstream's class names (vbench/third_party/tag2Text/tag_class.py `tra_array`, 3429
# names in class order, 3313 distinct), one per line; sha256 of the file as written:
TAG_LIST = pathlib.Path(__file__).with_name("tag_list.txt")
TAG_LIST_SHA256 = "3a111b05b905eea9d5da40b916176647d09b0b6d6364cd0797b71ad63182071a"
_DROPPED = ("relative_position_index", "attn_mask")


@dataclasses.dataclass(frozen=True)
class Loaded:
    model: model_lib.Tag2Text
    tokenizer: tokenizer_lib.Tokenizer
    tag_names: List[str]
    ignored: List[str]


def tag_names(path: os.PathLike = TAG_LIST) -> List[str]:
    """The class names in class order (tag_class.py's tra_array: 3429 names, not unique)."""
    return pathlib.Path(path).read_text(encoding="utf-8").split("\n")[:-1]


LM_BIAS = "text_decoder.cls.predictions.bias"
LM_DECODER_BIAS = "text_decoder.cls.predictions.decoder.bias"  # the same Parameter upstream
WORD_EMBEDDINGS = "text_decoder.bert.embeddings.word_embeddings.weight"
LM_DECODER_WEIGHT = "text_decoder.cls.predictions.decoder.weight"  # tied to WORD_EMBEDDINGS


def _tied_twin(key: str) -> Optional[str]:
    """The key whose value upstream's load leaves in `key`'s parameter when the file has
    both: a tag_encoder layer-0/1 weight's vision_multi twin (loaded after it); the LM
    head's decoder.bias (a child module, loaded after the head's own `bias`); the LM
    head's decoder.weight for the decoder's word embeddings (tied; `cls` loads after
    `bert`)."""
    if key == LM_BIAS:
        return LM_DECODER_BIAS
    if key == WORD_EMBEDDINGS:
        return LM_DECODER_WEIGHT
    prefix = "tag_encoder.encoder.layer."
    if not key.startswith(prefix):
        return None
    layer, rest = key[len(prefix):].split(".", 1)
    if int(layer) >= 2 or rest.startswith("attention."):
        return None
    return f"vision_multi.encoder.layer.{layer}.{rest}"


def load_state(model: model_lib.Tag2Text, state: Dict[str, torch.Tensor]) -> List[str]:
    """Loads `state` (official key names) into `model`; returns the ignored keys."""
    wanted = model.state_dict()
    ignored = sorted(k for k in state if k not in wanted and k != LM_DECODER_BIAS
                     and not k.endswith(_DROPPED))
    missing = [k for k in wanted if k not in state and _tied_twin(k) not in state]
    if missing:
        raise ValueError(f"the checkpoint lacks {len(missing)} weights, e.g. {missing[:3]}")
    for key in wanted:
        if key in state and state[key].shape != wanted[key].shape:
            raise ValueError(f"{key}: shape {tuple(state[key].shape)} in the checkpoint, "
                             f"{tuple(wanted[key].shape)} in the model (a relative position "
                             "table of another window size is not resampled here)")
    ordered = {k: state[_tied_twin(k)] if _tied_twin(k) in state else state[k]
               for k in wanted}
    model.load_state_dict(ordered, strict=True)
    return ignored


def load(checkpoint: os.PathLike, vocab: os.PathLike, device: torch.device,
         arch: model_lib.Architecture = model_lib.Architecture(),
         tag_list: os.PathLike = TAG_LIST) -> Loaded:
    state = state_dict_lib.read_state_dict(checkpoint, key="model", mmap=True)
    model = model_lib.Tag2Text(arch)
    ignored = load_state(model, state)
    names = tag_names(tag_list)
    if len(names) != arch.num_classes:
        raise ValueError(f"{tag_list}: {len(names)} tag names for {arch.num_classes} classes")
    tokenizer = tokenizer_lib.Tokenizer(vocab)
    if len(tokenizer) != arch.text.vocab_size:
        raise ValueError(f"{vocab}: {len(tokenizer)} tokens with [DEC] and [ENC], the "
                         f"decoder has {arch.text.vocab_size}")
    return Loaded(model=model.to(device).eval(), tokenizer=tokenizer, tag_names=names,
                  ignored=ignored)

