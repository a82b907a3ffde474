"""MSS (spec §4.5) around the Q-Align scorer: windows, threshold, artifact frames.

  windows(T)        frame t's window of 3: [t-1, t, t+1] clamped to the video; short ones
                    are padded at the end while the window starts at frame 0, otherwise
                    at the front, and frame 0's window is always [0, 0, 0] (the official
                    special case). So the last frame is [T-2, T-2, T-1], and with T = 2
                    frame 1 is [0, 1, 1].
  threshold(pas)    from the raw PAS of the same video: None -> 0.01; < 0.1 -> 0.01;
                    < 0.3 -> 0.015; < 0.5 -> 0.025; else 0.03 (NaN falls through every
                    comparison to 0.03, as upstream).
  artifact_frames   {i, i+1 : |s[i+1] - s[i]| > threshold}, unique.
  score             1 - |artifact frames| / T.

The window scores arrive as the scorer computes them (fp16 on CUDA upstream: the
softmax @ weights product is half precision, so scores move in steps of about 5e-4).
"""

from typing import List, Optional, Sequence

import numpy as np

WINDOW = 3  # motion_smoothness_score.py --window_size default; evaluate.sh keeps it


def windows(num_frames: int, size: int = WINDOW) -> List[List[int]]:
    if num_frames < 1:
        raise ValueError(f"expected a video with frames, found {num_frames}")
    left = (size - 1) // 2
    right = size - 1 - left
    out = []
    for t in range(num_frames):
        start, end = max(0, t - left), min(num_frames, t + right + 1)
        window = list(range(start, end))
        while len(window) < size:
            if start == 0:
                window.append(window[-1])
            else:
                window.insert(0, window[0])
        out.append([window[0]] * size if t < left else window)
    return out


def threshold(pas: Optional[float]) -> float:
    if pas is None:
        return 0.01
    if pas < 0.1:
        return 0.01
    if 0.1 <= pas < 0.3:
        return 0.015
    if 0.3 <= pas < 0.5:
        return 0.025
    return 0.03


def artifact_frames(scores: Sequence[float], limit: float) -> np.ndarray:
    jumps = np.flatnonzero(np.abs(np.diff(np.asarray(scores, np.float64))) > limit)
    return np.unique(np.concatenate([jumps, jumps + 1]))


def score(window_scores: Sequence[float], pas: Optional[float]) -> float:
    """MSS of one video from its per-frame window scores and its raw PAS."""
    if len(window_scores) == 0:
        raise ValueError("expected one Q-Align score per frame, found none")
    return 1 - len(artifact_frames(window_scores, threshold(pas))) / len(window_scores)
