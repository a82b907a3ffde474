"""Displacement statistics over the outputs of a sliding-window ONLINE point tracker.

An online tracker (co-tracker's CoTrackerOnlinePredictor: window S, step S // 2) is fed
`video[ind:ind + S]` for ind in range(0, T - step, step). Every call returns the track
HISTORY of all frames seen so far, not just the new ones: with T_k the length of chunk
k, the history has L_0 = T_0 frames after the first call and L_k = L_{k-1} +
min(step, T_k - step) after call k (the model pads its stored predictions by that much
and rewrites the current window).

Two reductions of those outputs, with D the per-point displacement from the position in
the first row:

* `concatenated_history_displacement` (an official quirk some benchmarks keep):
  concatenate the histories of all calls along time (sum_k L_k rows, early frames counted
  once per call), subtract row 0, and take the mean L2 norm over rows and points, in the
  histories' float32 numpy arithmetic.
* `final_history_displacement` (the corrected variant): the same mean over the LAST
  history only, where every frame appears once with its final estimate.
"""

from typing import List, Sequence

import numpy as np


def chunk_starts(num_frames: int, step: int) -> List[int]:
    """The first frame of each chunk: range(0, num_frames - step, step)."""
    if step <= 0:
        raise ValueError(f"step must be positive, got {step}")
    return list(range(0, num_frames - step, step))


def history_lengths(num_frames: int, window: int) -> List[int]:
    """The number of frames in the history returned by each call (see module docstring)."""
    step = window // 2
    lengths = []
    for ind in chunk_starts(num_frames, step):
        chunk = min(window, num_frames - ind)
        lengths.append(chunk if not lengths else lengths[-1] + min(step, chunk - step))
    return lengths


def _stack(histories: Sequence[np.ndarray]) -> List[np.ndarray]:
    if len(histories) == 0:
        raise ValueError("expected at least one tracker output (a clip longer than one step)")
    arrays = [np.asarray(h) for h in histories]
    for h in arrays:
        if h.ndim != 3 or h.shape[-1] != 2 or h.shape[1] != arrays[0].shape[1]:
            raise ValueError(f"expected [L, N, 2] track histories of one N, got {h.shape}")
    return arrays


def concatenated_history_displacement(histories: Sequence[np.ndarray]) -> float:
    """mean ||A - A[0]|| over A = concatenate(histories), early frames repeated."""
    tracks = np.concatenate(_stack(histories), 0)
    tracks = tracks - tracks[0]
    return float(np.mean(np.linalg.norm(tracks, axis=-1)))


def final_history_displacement(histories: Sequence[np.ndarray]) -> float:
    """mean ||H - H[0]|| over the last history H only (each frame once)."""
    tracks = _stack(histories)[-1]
    return float(np.mean(np.linalg.norm(tracks - tracks[0], axis=-1)))
