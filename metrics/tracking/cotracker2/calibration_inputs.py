"""The seeded inputs of the CoTracker2 calibration (testdata/calibration.json): the video and
the weight digest that upstream co-tracker 82e02e8 was run on, and the call's settings.

Used by //tools/calibration:cotracker2_parity_test, which recomputes our side on them.
"""

import hashlib

import numpy as np
import torch

CALIBRATION = "metrics/tracking/cotracker2/testdata/calibration.json"
FRAMES, HEIGHT, WIDTH = 14, 96, 128
GRID_SIZE = 10
WEIGHT_SEED = 0


def seeded_video(frames: int = FRAMES, height: int = HEIGHT, width: int = WIDTH,
                 seed: int = 0) -> torch.Tensor:
    """(1, T, 3, H, W) float32 integer values 0..255: six drifting sine gratings per channel."""
    rng = np.random.default_rng(seed)
    fx, fy = rng.uniform(0.05, 0.3, (2, 6))
    phase = rng.uniform(0, 2 * np.pi, (6, 3))
    t = np.arange(frames, dtype=np.float64)[:, None, None]
    y = np.arange(height, dtype=np.float64)[None, :, None]
    x = np.arange(width, dtype=np.float64)[None, None, :]
    channels = []
    for c in range(3):
        wave = sum(np.sin(fx[k] * (x - 1.5 * t) + fy[k] * (y - 0.75 * t) + phase[k, c])
                   for k in range(6))
        channels.append(np.round(np.clip(127.5 + 40 * wave, 0, 255)))
    return torch.from_numpy(np.stack(channels, 1)[None].astype(np.float32))


def video_digest(video: torch.Tensor) -> str:
    """sha256 of the video's uint8 bytes (the stored `inputs.video_sha256`)."""
    return hashlib.sha256(video.numpy().astype(np.uint8).tobytes()).hexdigest()


def weights_digest(state) -> str:
    """sha256 over (key utf-8, then the float32 tensor's bytes) for every entry, in order."""
    digest = hashlib.sha256()
    for key, tensor in state.items():
        assert tensor.dtype == torch.float32, key
        digest.update(key.encode())
        digest.update(tensor.contiguous().numpy().tobytes())
    return digest.hexdigest()
