"""The frames both implementations see in a parity check: real-looking, odd sizes.

Rendered by //tools/fixtures' ray-cast room (textured walls, a red sphere, a camera
pan), so they have edges, gradients and flat areas like video frames; deterministic.
"""

from typing import List, Tuple

import numpy as np

from tools.fixtures import scene

# (height, width): odd and even, portrait-free landscape, square, a 640-max frame
# as the official Step 1 resize leaves it, and one smaller than the CLIP crop.
SIZES: Tuple[Tuple[int, int], ...] = ((97, 131), (224, 224), (239, 427), (361, 641))
FRAMES_PER_SIZE = 3
SEED = 11


def frames_by_size(seed: int = SEED) -> List[np.ndarray]:
    """One (FRAMES_PER_SIZE, H, W, 3) uint8 BGR array per entry of SIZES."""
    return [scene.render_clip(FRAMES_PER_SIZE, h, w, seed + i)[0]
            for i, (h, w) in enumerate(SIZES)]


def all_frames(seed: int = SEED) -> List[np.ndarray]:
    """Every frame of frames_by_size, as a flat list of (H, W, 3) uint8 BGR arrays."""
    return [frame for clip in frames_by_size(seed) for frame in clip]


def describe() -> str:
    """The inputs column of the parity table."""
    sizes = ", ".join(f"{w}x{h}" for h, w in SIZES)
    return (f"{FRAMES_PER_SIZE * len(SIZES)} BGR frames of the //tools/fixtures room "
            f"(seed {SEED}) at {sizes}")
