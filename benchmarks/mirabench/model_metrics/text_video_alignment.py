"""MiraBench's five text-video alignment metrics of one clip (spec §3.5; official
evaluation/text_video_consistency.py `EvaluateTextVideoConsistency`).

camera_alignment, main_object_alignment, background_alignment, style_alignment and
overall_consistency are each `cos(norm(ViCLIP.encode_vision(frames)),
norm(ViCLIP.encode_text(caption)))` (a raw cosine, no x100) on the same 8 frames, with the
caption benchmarks.mirabench.sample.CAPTION_OF names; only the caption differs, so the
video is encoded once per clip (the official code encodes it once per metric: same value).

Frames: the official code reads the mp4 with decord and takes `middle_frame_indices(vlen)`
of its frames; we take those indices of the frames the runner decoded once (OpenCV's
ffmpeg decode). decord 0.6.0 (locked, test-only) gives the same frame count and the same
pixels on mp4v, H.264 (yuv420p/yuv444p/yuvj420p) and HEVC clips: every frame is compared
live by //tools/calibration:decode_parity_test.
Pixels: metrics.viclip.inputs.pixel_values (tensor bicubic resize without antialias, the
official torchvision 0.13 behaviour). Tokens: metrics.viclip.tokenizer.
"""

from typing import Dict, Mapping

import numpy as np
import torch

from benchmarks.mirabench.model_metrics import clip_frames
from metrics.viclip import inputs
from metrics.viclip import similarity

METRIC_IDS = ("camera_alignment", "main_object_alignment", "background_alignment",
              "style_alignment", "overall_consistency")


# The scorer and the encoders are the generic metrics.viclip.similarity; MiraBench's part is
# the 8 middle frames, the captions and the raw cosine scale.
ViClipScorer = similarity.ViClipScorer
text_embedding = similarity.text_embedding


def video_embedding(frames: np.ndarray, scorer: ViClipScorer) -> torch.Tensor:
    """(1, embed_dim) ViCLIP embedding of a clip's 8 middle frames (uint8 [T, H, W, 3] RGB)."""
    frames = clip_frames.checked(frames)
    picked = frames[inputs.middle_frame_indices(len(frames), scorer.model.config.num_frames)]
    return similarity.video_embedding(picked, scorer)


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
        out[metric_id] = similarity.cosine(video, text_embedding(caption, scorer))
    return out
