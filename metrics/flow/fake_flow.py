"""Test doubles for flow code: a recording zero-flow function, a ramp clip, and a
stand-in RAFT whose flow is known from its input."""

import math

import numpy as np
import torch

# exp(-(40/255) / 0.15): the score of a span of ramp_clip frames sampled 4 apart.
RAMP_PAIR_SCORE = math.exp(-(40 / 255) / 0.15)


class ZeroFlow:
    """A flow function returning zero flows and recording the pairs it saw."""

    def __init__(self):
        self.calls = []

    def __call__(self, pairs):
        self.calls.append(list(pairs))
        height, width = pairs[0][0].shape[:2]
        return np.zeros((len(pairs), 2, height, width), np.float32)


def ramp_clip(num_frames, height=8, width=10):
    """Frame i is uniformly 10 * i, so sampled pairs 4 apart differ by 40/255."""
    values = 10 * np.arange(num_frames, dtype=np.uint8)
    return np.broadcast_to(values[:, None, None, None], (num_frames, height, width, 3)).copy()


class RedChannelRaft(torch.nn.Module):
    """A stand-in for torchvision's RAFT: the flow of a pair is (10 * red, 0) of image1 as
    received (so its magnitudes depend on the padding and scaling applied before the
    call); it insists on RAFT's 20 iterations and returns RAFT's list of flows."""

    def __init__(self):
        super().__init__()
        self.anchor = torch.nn.Parameter(torch.zeros(1))

    def forward(self, image1, image2, num_flow_updates):
        del image2
        assert num_flow_updates == 20
        flow = torch.stack([10 * image1[:, 0], torch.zeros_like(image1[:, 0])], 1)
        return [flow * 0, flow]
