"""Tag2Text_Caption.generate(images, tag_input=None) (Vchitect/VBench@45e79ec
vbench/third_party/tag2Text/tag2text.py) on model.Tag2Text: tags, tag encoding, the
batch quirk and beam search, as model.py's docstring describes."""

import dataclasses
from typing import List, Sequence

import numpy as np
import torch

from metrics.tag2text import beam_search
from metrics.tag2text import bert
from metrics.tag2text import model as model_lib
from metrics.tag2text import tokenizer as tokenizer_lib


@dataclasses.dataclass(frozen=True)
class Captions:
    captions: List[str]
    tags: List[str]              # per image, " | "-joined
    tag_logits: torch.Tensor     # (B, classes)
    token_ids: torch.Tensor      # (B, length): the decoder's output, prompt included
    scores: List[float]          # each caption's beam score (sum log-prob / length)


def decoder_memory(tag_states: torch.Tensor, beams: int) -> torch.Tensor:
    """What the decoder's beam rows attend to: each row of the tag encoder's (B x beams)
    output repeated `beams` times more (transformers 4.33.2's _expand_inputs_for_generation
    on model_kwargs), cut to the first B x beams rows (med.py's BertSelfAttention when the
    keys outnumber the queries): row r gets row r // beams of its input, i.e. image
    r // beams^2 (model.py's batch quirk)."""
    return tag_states.repeat_interleave(beams, dim=0)[:tag_states.shape[0]]


@torch.no_grad()
def caption(model: model_lib.Tag2Text, tokenizer: tokenizer_lib.Tokenizer,
            tag_names: Sequence[str], images: torch.Tensor,
            settings: model_lib.Settings = model_lib.Settings()) -> Captions:
    """Tag2Text_Caption.generate(images, tag_input=None) on (B, 3, S, S) normalised images."""
    if len(tag_names) != model.arch.num_classes:
        raise ValueError(f"{len(tag_names)} tag names for {model.arch.num_classes} classes")
    beams = settings.num_beams
    image_embeds = model.visual_encoder(images)
    logits = model.tag_logits(image_embeds)
    on = model_lib.tags_on(logits, settings)
    tags = [" | ".join(tag_names[c] for c in np.flatnonzero(row == 1)) for row in on]
    rows = images.shape[0] * beams
    ids, mask = tokenizer.encode_padded([t for t in tags for _ in range(beams)],
                                        settings.tag_max_length)
    ids[:, 0] = tokenizer.enc_token_id
    tag_states = model.tag_encoder(ids.to(images.device),
                                   bert.padding_mask(mask.to(images.device)),
                                   image_embeds.repeat_interleave(beams, dim=0))
    memory = decoder_memory(tag_states, beams)
    prompt = tokenizer.prompt_ids(settings.prompt).to(images.device)
    search = beam_search.Settings(
        num_beams=beams, max_length=settings.max_length, min_length=settings.min_length,
        repetition_penalty=settings.repetition_penalty,
        eos_token_id=tokenizer.sep_token_id, pad_token_id=tokenizer.pad_token_id)
    token_ids, scores = beam_search.search(lambda x: model.text_decoder(x, memory),
                                   prompt.repeat(rows, 1), search)
    captions = [tokenizer.decode(row)[len(settings.prompt):] for row in token_ids.tolist()]
    return Captions(captions=captions, tags=tags, tag_logits=logits, token_ids=token_ids,
                    scores=scores)
