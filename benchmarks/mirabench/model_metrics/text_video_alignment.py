"""MiraBench's five text-video alignment metrics of one clip (spec §3.5; official
evaluation/text_video_consistency.py `EvaluateTextVideoConsistency`).

camera_alignment, main_object_alignment, background_alignment, style_alignment and
overall_consistency are each `cos(norm(ViCLIP.encode_vision(frames)),
norm(ViCLIP.encode_text(caption)))` (a raw cosine, no x100) on the same 8 frames, with the
caption benchmarks.mirabench.sample.CAPTION_OF names; only the caption differs, so the
video is encoded once per clip (the official code encodes it once per metric: same value).

Frames: the official code reads the mp4 with decord and takes `middle_frame_indices(vlen)`
of its frames; we take those indices of the frames the runner decoded once (OpenCV's
ffmpeg decode). A scratch run of decord 0.6.0 (not in the lock) on mp4v, H.264
(yuv420p/yuv444p/yuvj420p) and HEVC clips gave the same frame count and the same pixels
at those indices, max |diff| 0 (metrics/viclip/testdata/decord_decode.json).
Pixels: metrics.viclip.inputs.pixel_values (tensor bicubic resize without antialias, the
official torchvision 0.13 behaviour). Tokens: metrics.viclip.tokenizer.
"""

import dataclasses
from typing import Dict, Mapping

import numpy as np
import torch

from benchmarks.mirabench.model_metrics import clip_frames
from metrics.viclip import inputs
from metrics.viclip import model as model_lib
from metrics.viclip import tokenizer as tokenizer_lib

METRIC_IDS = ("camera_alignment", "main_object_alignment", "background_alignment",
              "style_alignment", "overall_consistency")


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


def video_embedding(frames: np.ndarray, scorer: ViClipScorer) -> torch.Tensor:
    """(1, embed_dim) ViCLIP embedding of a clip's 8 middle frames (uint8 [T, H, W, 3] RGB)."""
    frames = clip_frames.checked(frames)
    picked = frames[inputs.middle_frame_indices(len(frames), scorer.model.config.num_frames)]
    pixels = inputs.pixel_values(picked, antialias=scorer.antialias)
    return scorer.model.encode_vision(pixels.unsqueeze(0).to(scorer.device))


def text_embedding(caption: str, scorer: ViClipScorer) -> torch.Tensor:
    """(1, embed_dim) ViCLIP embedding of a caption (32-token context)."""
    tokens = tokenizer_lib.caption_tokens(scorer.tokenizer, caption,
                                          scorer.model.config.context_length)
    return scorer.model.encode_text(torch.tensor([tokens], device=scorer.device))


def compute(frames: np.ndarray, captions: Mapping[str, str],
            scorer: ViClipScorer) -> Dict[str, float]:
    """{metric id: cosine} for every metric of `captions` (metric id -> its caption text).

    Raises:
        ValueError: Bad frames, an unknown metric id, or an empty caption.
    """
    unknown = sorted(set(captions) - set(METRIC_IDS))
    if unknown:
        raise ValueError(f"not a text-video alignment metric: {unknown}")
    if not captions:
        return {}
    video = video_embedding(frames, scorer)
    out = {}
    for metric_id, caption in captions.items():
        if not caption:
            raise ValueError(f"{metric_id}: empty caption")
        out[metric_id] = float(model_lib.cosine(video, text_embedding(caption, scorer))[0])
    return out
