"""The one input check every MiraBench per-video model metric shares."""

import numpy as np


def checked(frames, min_frames: int = 1) -> np.ndarray:
    """`frames` as a uint8 [T, H, W, 3] array with T >= min_frames.

    Raises:
        ValueError: Any other shape, dtype or length, named in the message.
    """
    frames = np.asarray(frames)
    if (frames.ndim != 4 or frames.shape[-1] != 3 or frames.dtype != np.uint8
            or len(frames) < min_frames):
        raise ValueError(f"expected uint8 [T >= {min_frames}, H, W, 3] RGB frames, got "
                         f"{frames.shape} {frames.dtype}")
    return frames
