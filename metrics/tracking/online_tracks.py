"""Runs a sliding-window ONLINE point tracker over a clip and keeps every call's output.

The tracker is anything with co-tracker's online predictor interface (`step`,
`__call__(video_chunk, is_first_step=False, grid_size=...) -> (tracks, visibility)`), e.g.
metrics.tracking.cotracker2.loader.load_cotracker2_online. As the upstream online demo
drives it: the whole video as RGB float 0..255 [1, T, 3, H, W], one call with
is_first_step=True and a grid_size x grid_size query grid at frame 0, then
`model(video_chunk=video[:, ind:ind + 2 * step])` for ind in
online_history.chunk_starts(T, step). Each call returns the cumulative track history;
metrics.tracking.online_history reduces the list. The grid size, which frames and the
reduction are the caller's.
"""

from typing import List

import numpy as np
import torch

from metrics.tracking import online_history


def histories(frames_rgb: np.ndarray, model, grid_size: int) -> List[np.ndarray]:
    """The [L_k, N, 2] track history returned by each online call, as numpy float32.

    Args:
        frames_rgb: uint8 [T, H, W, 3] RGB frames.
        model: An online tracker (see the module docstring).
        grid_size: The query grid's side at frame 0.
    """
    device = getattr(model, "device", None) or next(model.parameters()).device
    video = torch.from_numpy(np.ascontiguousarray(frames_rgb)).permute(0, 3, 1, 2)[None].float()
    video = video.to(device)
    step = model.step
    model(video_chunk=video, is_first_step=True, grid_size=grid_size)
    out = []
    for ind in online_history.chunk_starts(video.shape[1], step):
        tracks, _ = model(video_chunk=video[:, ind:ind + step * 2])
        out.append(tracks[0].detach().cpu().numpy().copy())
    return out
