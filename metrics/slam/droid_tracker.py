"""DROID-SLAM's monocular tracking loop (princeton-vl/DROID-SLAM droid_slam/droid.py),
written for worldeval on metrics/slam's pieces.

`track` per frame: the motion filter (droid_motion_filter.py), then the frontend
(droid_frontend.py); the global backend does not run while tracking. `terminate`:
the backend once per entry of `backend_steps` (in order), then the trajectory filler
(droid_filler.py) on the whole stream again; the filler's world-to-camera poses are
inverted to camera-to-world [t, q(xyzw)] (float32), with the reprojection inputs of the
LAST backend call (coords1, valid, target; see droid_factor_graph.update_lowmem).

Arguments (no defaults here: the caller's settings carry them):
  args: the official argument names: buffer, filter_thresh, warmup, beta,
    keyframe_thresh, frontend_thresh / _window / _radius / _nms, backend_thresh /
    _radius / _nms, upsample.
  internals: frontend_max_factors, frontend_max_age, frontend_iters, init_iters,
    init_neighborhood_radius, init_proximity_rad, init_proximity_nms,
    init_proximity_beta, backend_factors_per_keyframe, filler_batch, filler_iters,
    frontend_ba, backend_ba, damping_scale, damping_eps.

Precision: float32 everywhere off CUDA; on CUDA the encoders and the update operator run
under autocast and the video's feature buffers are float16, as upstream (droid_video.Amp).
The video holds min(buffer, frames + filler_batch + 1) slots (the official one holds
`buffer`; only the memory differs): past `buffer` both fail with an index error.
"""

import dataclasses
from typing import Sequence, Tuple

import numpy as np
import torch

from metrics.slam import droid_filler
from metrics.slam import droid_frontend
from metrics.slam import droid_motion_filter
from metrics.slam import droid_video
from metrics.slam import se3


@dataclasses.dataclass
class TrackResult:
    """terminate()'s outputs.

    Attributes:
      trajectory: (T, 7) float32 camera-to-world [tx, ty, tz, qx, qy, qz, qw] per frame.
      coords1, valid, target: the last backend call's reprojection inputs.
      keyframe_tstamps: the video's keyframe timestamps after the backend.
      motion_filter_kept: how many frames the motion filter added.
    """

    trajectory: np.ndarray
    coords1: torch.Tensor
    valid: torch.Tensor
    target: torch.Tensor
    keyframe_tstamps: Tuple[float, ...]
    motion_filter_kept: int


class DroidTracker:
    """One sequence's tracker (the official Droid object, without its viewer)."""

    def __init__(self, net, args, internals, image_size, num_frames: int, device="cpu"):
        self.net, self.args, self.internals = net, args, internals
        self.amp = droid_video.Amp(device)
        cfg = net.config
        capacity = min(int(args.buffer), int(num_frames) + internals.filler_batch + 1)
        self.video = droid_video.DepthVideo(image_size, capacity, cfg.feature_dim,
                                            cfg.hidden_dim, device, self.amp.feature_dtype)
        self.filterx = droid_motion_filter.MotionFilter(net, self.video, args.filter_thresh,
                                                        self.amp)
        self.frontend = droid_frontend.Frontend(net, self.video, args, internals, self.amp)
        self.kept = 0

    @torch.no_grad()
    def track(self, tstamp, image, intrinsics) -> None:
        self.kept += int(self.filterx.track(tstamp, image, intrinsics))
        self.frontend()

    @torch.no_grad()
    def terminate(self, stream: Sequence, backend_steps: Sequence[int]) -> TrackResult:
        self.frontend = None
        out = None
        for steps in backend_steps:
            out = droid_frontend.backend(self.net, self.video, self.args, self.internals,
                                         self.amp, steps)
        if out is None:
            raise ValueError("backend_steps is empty: terminate needs at least one backend call")
        stamps = tuple(self.video.tstamp[:self.video.counter].tolist())
        w2c = droid_filler.fill(self.net, self.video, self.internals, self.amp, stream)
        traj = se3.inv(w2c).float().cpu().numpy()
        return TrackResult(traj, *out, keyframe_tstamps=stamps, motion_filter_kept=self.kept)


def track_sequence(net, frames: Sequence, args, internals, backend_steps: Sequence[int],
                   t0: int = 0, device="cpu") -> TrackResult:
    """The official loop over (t, image [1, 3, H, W] uint8 BGR, intrinsics) triples:
    frames with t < t0 are skipped while tracking, the filler sees all of them.

    Raises droid_factor_graph.NoEdges (a ValueError) when the global graph has no edge
    (a single keyframe), where the official code raises too.
    """
    frames = list(frames)
    if not frames:
        raise ValueError("no frame to track")
    image = frames[0][1]
    tracker = DroidTracker(net, args, internals, (image.shape[2], image.shape[3]), len(frames),
                           device)
    for t, img, intrinsics in frames:
        if t < t0:
            continue
        tracker.track(t, img, intrinsics)
    return tracker.terminate(frames, backend_steps)
