"""Q-Align's video quality scorer (`QAlignVideoScorer` of the official code) on our model.

A "video" is a list of frames; each is square-padded and CLIP-preprocessed
(preprocess.py) and the prompt

    USER: How would you rate the quality of this video?\\n<|image|>\\nASSISTANT: The quality of the video is

(the frames' tokens in place of <|image|>) is run once per video. The score is
softmax(the last position's logits of the level tokens "excellent", "good", "fair",
"poor", "bad") @ (1, .75, .5, .25, 0), computed in the model dtype as the official
code does in float16 (its weight vector is float16; here it takes the model dtype, so
float32 and bfloat16 runs work too).

The official scorer runs all videos of a call in one batch; `score_windows` runs them in
chunks of at most `batch_frames` frames (at least one video per chunk), so memory stays
bounded; each video's prompt is independent of the others in the batch (same length, no
padding), so the scores do not depend on the chunking beyond floating-point noise.
"""

from typing import Sequence

import numpy as np
import torch

from metrics.qalign import loader as loader_lib
from metrics.qalign import model as model_lib
from metrics.qalign import tokenizer as tokenizer_lib

PROMPT = ("USER: How would you rate the quality of this video?\n<|image|>\n"
          "ASSISTANT: The quality of the video is")
LEVELS = ("excellent", "good", "fair", "poor", "bad")
WEIGHTS = (1.0, 0.75, 0.5, 0.25, 0.0)
BATCH_FRAMES = 48


class VideoScorer:
    def __init__(self, loaded: loader_lib.LoadedQAlign, prompt: str = PROMPT):
        self.loaded = loaded
        ids = tokenizer_lib.prompt_ids(prompt, loaded.tokenizer, model_lib.IMAGE_TOKEN)
        self.input_ids = torch.tensor(ids, dtype=torch.long, device=loaded.device)
        self.level_ids = tokenizer_lib.level_ids(LEVELS, loaded.tokenizer)
        self.weights = torch.tensor(WEIGHTS, dtype=loaded.dtype, device=loaded.device)

    def pixels(self, videos: Sequence[Sequence[np.ndarray]]) -> torch.Tensor:
        lengths = {len(v) for v in videos}
        if len(lengths) != 1 or 0 in lengths:
            raise ValueError(f"expected videos of one non-zero frame count, found {lengths}")
        stacked = np.stack([self.loaded.preprocess.frames(v) for v in videos])
        return torch.from_numpy(stacked).to(self.loaded.device, self.loaded.dtype)

    @torch.inference_mode()
    def level_logits(self, videos: Sequence[Sequence[np.ndarray]]) -> torch.Tensor:
        """(B, 5) logits of the level tokens at the last position, model dtype."""
        logits = self.loaded.model(self.input_ids, self.pixels(videos))
        return logits[:, -1, self.level_ids]

    @torch.inference_mode()
    def score(self, videos: Sequence[Sequence[np.ndarray]]) -> torch.Tensor:
        """(B,) scores in [0, 1] of one batch, model dtype."""
        return torch.softmax(self.level_logits(videos), -1) @ self.weights

    def score_windows(self, windows: Sequence[Sequence[np.ndarray]],
                      batch_frames: int = BATCH_FRAMES) -> np.ndarray:
        """float64 (T,): the score of each window (a list of RGB uint8 frames)."""
        if batch_frames < 1:
            raise ValueError(f"batch_frames must be positive, found {batch_frames}")
        if len(windows) == 0:
            return np.zeros(0, np.float64)
        per_chunk = max(1, batch_frames // max(1, len(windows[0])))
        parts = [self.score(windows[i:i + per_chunk]).float().cpu().numpy()
                 for i in range(0, len(windows), per_chunk)]
        return np.concatenate(parts).astype(np.float64)


def load_video_scorer(snapshot_dir, device="cpu", dtype=None, config=None) -> VideoScorer:
    return VideoScorer(loader_lib.load_qalign(snapshot_dir, device, dtype, config))
