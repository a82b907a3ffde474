"""MiraBench `tracking_strength` of one clip (spec §3.2; official
evaluation/__init__.py::calculate_tracking_strength).

`torch.hub.load("facebookresearch/co-tracker", "cotracker2_online")` (window 8, step 4)
on every frame as RGB float 0..255 [1, T, 3, H, W]: one call with is_first_step=True and
a 10 x 10 query grid at frame 0, then `model(video_chunk=video[:, ind:ind + 2 * step])`
for ind in range(0, T - step, step). Each call returns the cumulative track history in
native pixels; the official code concatenates all of them (early frames counted once
per call), subtracts row 0 and averages the L2 norm over rows and points, visibility
ignored: metrics.tracking.online_history.concatenated_history_displacement. The corrected
variant `corrected=True` (name: tracking_strength_final_history) averages over the last
history only, each frame once.

`model` is anything with co-tracker's online predictor interface (`step`,
`__call__(video_chunk, is_first_step=False, grid_size=...) -> (tracks, visibility)`),
e.g. metrics.tracking.cotracker2.loader.load_cotracker2_online (the MiraBench family).
The run is the generic metrics.tracking.online_tracks; MiraBench's part is every frame,
the 10 x 10 grid and the reduction.
"""

import numpy as np

from benchmarks.mirabench.model_metrics import clip_frames
from metrics.tracking import online_history
from metrics.tracking import online_tracks

GRID_SIZE = 10
CORRECTED_NAME = "tracking_strength_final_history"


def histories(frames: np.ndarray, model, grid_size: int = GRID_SIZE) -> list:
    """The [L_k, N, 2] track history returned by each online call, as numpy float32."""
    frames = clip_frames.checked(frames, min_frames=1)
    return online_tracks.histories(frames, model, grid_size)


def compute(frames: np.ndarray, model, grid_size: int = GRID_SIZE, corrected: bool = False) -> float:
    """The clip's tracking strength (official arithmetic unless `corrected`).

    Raises:
        ValueError: Bad frames, or a clip of at most `step` frames (no tracker call; the
            official code fails there too, on an empty concatenation).
    """
    tracks = histories(frames, model, grid_size)
    if corrected:
        return online_history.final_history_displacement(tracks)
    return online_history.concatenated_history_displacement(tracks)
