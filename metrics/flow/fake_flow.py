"""Test doubles for warp-error code: a recording zero-flow function and a ramp clip."""

import math

import numpy as np

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
