"""Dynamic degree of a clip from RAFT (raft-things) flow: the VBench-style per-pair motion.

For each consecutive pair of the given frames (RGB uint8 as float 0..255 at native size),
`raft_things.flow` (InputPadder's centred replicate padding to multiples of 8, test-mode
`flow_up`), per-pixel |flow| on the PADDED flow (never unpadded), and the mean of its
int(fraction * H' * W') largest values (H', W' the padded size), in native pixels.
Which frames (the stride between them), the fraction, any threshold and the reduction
over pairs are the caller's.
"""

from typing import List, Sequence

import numpy as np
import torch

from metrics.flow import motion_stats
from metrics.flow import raft_things


def _tensor(frame: np.ndarray, device) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(frame)).permute(2, 0, 1).float()[None].to(device)


def pair_top_speeds(frames_rgb: Sequence[np.ndarray], model: torch.nn.Module,
                    fraction: float) -> List[float]:
    """The top-`fraction` mean flow magnitude of each consecutive pair (N - 1 values).

    Args:
        frames_rgb: uint8 (H, W, 3) RGB frames of one size, in order.
        model: metrics.flow.raft_things.load_raft_things(...), or any module with
            torchvision RAFT's call.
        fraction: The share of the largest magnitudes averaged, in (0, 1].

    Raises:
        ValueError: A bad fraction (see motion_stats.top_fraction_mean).
    """
    device = next(model.parameters()).device
    scores = []
    for first, second in zip(frames_rgb[:-1], frames_rgb[1:]):
        flow = raft_things.flow(model, _tensor(first, device), _tensor(second, device))
        speed = motion_stats.magnitude(flow[0].permute(1, 2, 0).cpu().numpy())
        scores.append(motion_stats.top_fraction_mean(speed, fraction))
    return scores
