"""The inputs of the VBench UMT parity check (vbench_umt_parity): two seeded clips and the
seeded full-size weights, made the same way by the official run and by the test.

Clips are integer arithmetic only (no float rounding that a CPU could move): 8 x 8 pixel
blocks of seeded colours averaged with a diagonal ramp that moves 9 levels a frame.
CLIPS: 20 frames at 320x240 (16 middle frames of 20; resized to 341x256, the long side
truncated, crop offset round(58.5) = 58) and 12 frames at 640x360 (fewer than 16: the last
index is repeated; resized to 455x256, crop offset round(115.5) = 116).
"""

from typing import List, Tuple

import numpy as np

CLIP_SEED = 35
WEIGHT_SEED = 352
CLIPS: Tuple[Tuple[str, int, int, int], ...] = (  # (file name, frames, width, height)
    ("a person is golf putting-0.mp4", 20, 320, 240),
    ("a person is marching-1.mp4", 12, 640, 360),
)


def clip_frames(index: int) -> np.ndarray:
    """uint8 (T, H, W, 3) RGB frames of CLIPS[index]."""
    _, frames, width, height = CLIPS[index]
    rng = np.random.default_rng(CLIP_SEED + index)
    blocks = rng.integers(0, 256, size=(frames, height // 8 + 1, width // 8 + 1, 3),
                          dtype=np.int64)
    blocks = blocks.repeat(8, axis=1).repeat(8, axis=2)[:, :height, :width]
    y, x = np.mgrid[:height, :width]
    t = np.arange(frames)[:, None, None]
    ramp = (x[None] + 2 * y[None] + 9 * t) % 256
    rgb = (blocks + ramp[..., None] * np.array([1, 2, 3])[None, None, None] % 256) // 2
    return rgb.astype(np.uint8)


def all_clips() -> List[np.ndarray]:
    return [clip_frames(i) for i in range(len(CLIPS))]
