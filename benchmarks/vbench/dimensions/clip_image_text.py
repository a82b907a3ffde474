"""OpenAI CLIP image-text logits as `clip.load("ViT-B/32")` computes them for VBench's
appearance_style (upstream vbench/appearance_style.py:51-62; openai/CLIP clip/model.py
`CLIP.forward`, `clip.tokenize`).

Upstream per frame: `logits_per_image, logits_per_text = clip_model(image, text)`, i.e.
image and text features each divided by their L2 norm, then
`logit_scale.exp() * image_features @ text_features.t()` (the learned scale of the
checkpoint, ~100 for OpenAI's weights, NOT a constant), transposed for logits_per_text.
`text = clip.tokenize([style])`: [<|startoftext|>] + BPE(style) + [<|endoftext|>],
zero-padded to 77; `truncate=False` is the default, so a longer text raises. The text
tower pools at the EOT position (the argmax of the ids, EOT being the largest id).

Here: the image tower is metrics.clip.vision (transformers' conversion of the same
OpenAI weights, QuickGELU as the openai package builds it), so background_consistency's
tower can be shared; the text tower is transformers' CLIPTextModelWithProjection (QuickGELU)
loaded strictly from the same snapshot's `text_model.*` / `text_projection.weight`, pooled
at the argmax of the ids as OpenAI does; `logit_scale` from the same file; the tokenizer
is metrics.viclip.tokenizer (OpenAI's BPE file and text clean-up). Float32 throughout:
`clip.load` on CUDA runs all of this in fp16, so official GPU logits carry fp16 rounding
(logits near 25 are multiples of 1/64, i.e. frame values multiples of ~1.6e-4).
"""

import dataclasses
import pathlib
from typing import List

import torch
from safetensors import safe_open
from transformers import CLIPConfig
from transformers import CLIPTextModelWithProjection

from metrics.clip import vision
from metrics.viclip import tokenizer as tokenizer_lib

CONTEXT_LENGTH = 77  # clip.tokenize's default
ACTIVATION = "quick_gelu"
_TEXT_PREFIXES = ("text_model.", "text_projection.")
_LOGIT_SCALE = "logit_scale"
_NON_PERSISTENT_SUFFIX = "position_ids"


@dataclasses.dataclass
class ClipImageText:
    """A loaded OpenAI CLIP (image tower, text tower, logit scale) and its tokenizer."""

    tower: vision.ClipVision
    text: CLIPTextModelWithProjection
    logit_scale: torch.Tensor  # the stored (log) scale, a 0-d float32 tensor
    tokenizer: object

    def __post_init__(self):
        have, want = len(self.tokenizer), self.text.config.vocab_size
        if have != want:
            raise ValueError(f"the BPE vocabulary has {have} tokens, CLIP's text embedding {want}")
        if self.tower.activation != ACTIVATION:
            raise ValueError(f"clip.load's towers use {ACTIVATION}, this one "
                             f"{self.tower.activation}")


def load_clip_image_text(folder, bpe_path, device, tower: vision.ClipVision = None
                         ) -> ClipImageText:
    """Loads the text tower and logit scale of a full CLIPModel snapshot (e.g.
    metrics.clip.frame_similarity.CLIP_VIT_B32) strictly, and its image tower unless
    `tower` (the same snapshot's, already loaded) is given.

    Raises:
        ValueError: Not a full CLIP snapshot, or tensors that do not fit its config.
    """
    folder = pathlib.Path(folder)
    config = CLIPConfig.from_pretrained(str(folder))
    text_config = config.text_config
    text_config.projection_dim = config.projection_dim
    text_config.hidden_act = ACTIVATION
    state, logit_scale = {}, None
    with safe_open(str(folder / vision.WEIGHTS_FILE), framework="pt") as f:
        for key in f.keys():
            if key == _LOGIT_SCALE:
                logit_scale = f.get_tensor(key).to(torch.float32).reshape(())
            elif key.startswith(_TEXT_PREFIXES) and not key.endswith(_NON_PERSISTENT_SUFFIX):
                state[key] = f.get_tensor(key).to(torch.float32)
    if logit_scale is None:
        raise ValueError(f"{folder}: no {_LOGIT_SCALE}; expected a full CLIPModel snapshot")
    text = CLIPTextModelWithProjection(text_config)
    try:
        text.load_state_dict(state, strict=True)
    except RuntimeError as e:
        raise ValueError(f"{folder}: the text tower does not fit its config: {e}") from e
    if tower is None:
        tower = vision.load_clip_vision(folder, device, ACTIVATION)
    return ClipImageText(tower, text.to(torch.device(device)).eval(), logit_scale,
                         tokenizer_lib.load_tokenizer(str(bpe_path)))


def tokens(model: ClipImageText, text: str) -> List[int]:
    """clip.tokenize([text])[0] (module doc).

    Raises:
        ValueError: More than 77 tokens (clip.tokenize raises: truncate=False).
    """
    sot = model.tokenizer.convert_tokens_to_ids(tokenizer_lib.SOT)
    eot = model.tokenizer.convert_tokens_to_ids(tokenizer_lib.EOT)
    ids = [sot] + tokenizer_lib.bpe_ids(model.tokenizer, text) + [eot]
    if len(ids) > CONTEXT_LENGTH:
        raise ValueError(f"Input {text} is too long for context length {CONTEXT_LENGTH}")
    return ids + [0] * (CONTEXT_LENGTH - len(ids))


def text_features(model: ClipImageText, text: str) -> torch.Tensor:
    """The L2-normalised text feature, (1, D) float32 on the CPU."""
    ids = torch.tensor([tokens(model, text)], device=next(model.text.parameters()).device)
    with torch.no_grad():
        hidden = model.text.text_model(input_ids=ids).last_hidden_state
        pooled = hidden[torch.arange(hidden.shape[0]), ids.argmax(dim=-1)]
        features = model.text.text_projection(pooled).float().cpu()
    return features / features.norm(dim=1, keepdim=True)


def image_features(model: ClipImageText, pixels: torch.Tensor) -> torch.Tensor:
    """The L2-normalised image features of (N, 3, 224, 224) pixels, (N, D) float32, CPU."""
    with torch.no_grad():
        features = model.tower.model(
            pixel_values=pixels.to(model.tower.device)).image_embeds.float().cpu()
    return features / features.norm(dim=1, keepdim=True)


def logits_per_text(model: ClipImageText, images: torch.Tensor, text: torch.Tensor
                    ) -> torch.Tensor:
    """(1, N) logits of normalised text (1, D) and image (N, D) features, as CLIP.forward
    orders the product: (scale * image) @ text.T, transposed."""
    return (model.logit_scale.exp() * images @ text.t()).t()
