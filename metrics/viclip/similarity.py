"""Text-video similarity with ViCLIP (the VBench-style overall consistency family):
`cos(norm(ViCLIP.encode_vision(frames)), norm(ViCLIP.encode_text(caption)))`, a raw
cosine in [-1, 1].

The frames are the ones the caller chose (as many as the model's num_frames, e.g.
metrics.viclip.inputs.middle_frame_indices of a clip), RGB uint8; pixels are
metrics.viclip.inputs.pixel_values (tensor bicubic resize, antialias a setting), tokens
metrics.viclip.tokenizer.caption_tokens. Which frames, any x100 and rounding are the
caller's.
"""

import dataclasses

import numpy as np
import torch

from metrics.viclip import inputs
from metrics.viclip import model as model_lib
from metrics.viclip import tokenizer as tokenizer_lib


@dataclasses.dataclass
class ViClipScorer:
    """A loaded ViCLIP, its tokenizer and the input settings, built once per run."""

    model: model_lib.ViClip
    tokenizer: object
    device: str = "cpu"
    antialias: bool = False

    def __post_init__(self):
        have, want = len(self.tokenizer), self.model.config.vocab_size
        if have != want:
            raise ValueError(f"the BPE vocabulary has {have} tokens, ViCLIP's embedding {want}")


def video_embedding(frames_rgb: np.ndarray, scorer: ViClipScorer) -> torch.Tensor:
    """(1, embed_dim) ViCLIP embedding of chosen uint8 [F, H, W, 3] RGB frames."""
    pixels = inputs.pixel_values(frames_rgb, antialias=scorer.antialias)
    return scorer.model.encode_vision(pixels.unsqueeze(0).to(scorer.device))


def text_embedding(caption: str, scorer: ViClipScorer) -> torch.Tensor:
    """(1, embed_dim) ViCLIP embedding of a caption (the model's context length)."""
    tokens = tokenizer_lib.caption_tokens(scorer.tokenizer, caption,
                                          scorer.model.config.context_length)
    return scorer.model.encode_text(torch.tensor([tokens], device=scorer.device))


def cosine(video: torch.Tensor, text: torch.Tensor) -> float:
    """The cosine of one video embedding and one text embedding, as a float."""
    return float(model_lib.cosine(video, text)[0])
