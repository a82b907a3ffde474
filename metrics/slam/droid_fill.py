"""DROID-SLAM's trajectory filler bookkeeping: which keyframes bracket each frame and by
how much it is interpolated (princeton-vl/DROID-SLAM droid_slam/trajectory_filler.py,
PoseTrajectoryFiller.__fill), written for worldeval.

The filler streams every frame again in batches of 16 (the last one shorter). For a
frame with timestamp t and the N keyframe timestamps ts (increasing):

    k0      = (number of keyframes with ts <= t) - 1
    k1      = k0 + 1 if k0 < N - 1 else k0
    dt      = ts[k1] - ts[k0] + 1e-3          (so dt = 1e-3 past the last keyframe)
    elapsed = t - ts[k0]
    pose    = exp(log(P[k1] * P[k0]^-1) / dt * elapsed) * P[k0]      (SE3, lietorch order)

after which 6 motion-only BA updates on the edges (k0 -> frame) and (k1 -> frame) refine
the poses. The quirk kept: past the last keyframe k1 = k0, so the relative motion is the
identity and the frame starts at the last keyframe's pose whatever its distance.
"""

from typing import Iterable, List, Sequence, Tuple

import numpy as np

BATCH = 16
DT_EPS = 1e-3


def batches(tstamps: Iterable[int], size: int = BATCH) -> List[List[int]]:
    """The filler's batches of the streamed timestamps, in order."""
    items = list(tstamps)
    return [items[i:i + size] for i in range(0, len(items), size)]


def interpolation_plan(keyframe_tstamps: Sequence[float], tstamps: Sequence[float]
                       ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(k0, k1, dt, elapsed) per frame, float32 like the depth video's timestamps.

    Raises ValueError when a frame precedes the first keyframe (k0 would be -1: the
    official code then indexes the LAST keyframe, a case the tracker never produces
    since frame 0 is always a keyframe).
    """
    ts = np.asarray(keyframe_tstamps, dtype=np.float32)
    tt = np.asarray(tstamps, dtype=np.float32)
    if ts.ndim != 1 or len(ts) == 0 or np.any(np.diff(ts) <= 0):
        raise ValueError(f"keyframe timestamps must be increasing, got {ts.tolist()}")
    k0 = np.array([int((ts <= t).sum()) - 1 for t in tt], dtype=np.int64)
    if np.any(k0 < 0):
        raise ValueError(f"frames {tt[k0 < 0].tolist()} precede the first keyframe {ts[0]}")
    k1 = np.where(k0 < len(ts) - 1, k0 + 1, k0)
    dt = ts[k1] - ts[k0] + np.float32(DT_EPS)
    return k0, k1, dt, tt - ts[k0]
