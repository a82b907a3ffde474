"""The optical-flow metrics' arithmetic, on any `flow(frame_a, frame_b) -> (H, W, 2)`.

The flow callable takes two native-resolution RGB uint8 frames and returns the flow
from a to b in native pixels (x, y): the SEA-RAFT backend owns the official x0.5
downsample, x2 upsample and value scaling (spec §4.5). Per consecutive pair (t, t+1)
of all the instance's frames (the arithmetic is metrics/flow/consistency.py and
motion_stats.py, checked against the official flow metrics in the SEA-RAFT parity rows):

* photometric_consistency.optical_flow_aepe (third_party/flow_aepe_metrics.py
  compute_epe, crop=30): forward f12 and backward f21 cropped to the centre
  (H-30) x (W-30); for each pixel p of the crop, q = p + f12(p), f21 read at
  round(q) clipped to the crop, epe = |q + f21(round q) - p|; the pair's value is
  the mean epe; the score the mean over pairs.
* motion_magnitude.optical_flow (flow_metrics.py): per pair the median of |f12|
  taken as torch.median does (the LOWER middle value for an even count, not the
  mean of the two); the score the mean over pairs.
"""

from typing import Callable, Sequence

import numpy as np

from benchmarks.common import family
from benchmarks.worldscore import metric_specs
from metrics.flow import consistency
from metrics.flow import motion_stats

AEPE = metric_specs.metric_id("photometric_consistency", "optical_flow_aepe")
MAGNITUDE = metric_specs.metric_id("motion_magnitude", "optical_flow")
CROP = 30
Flow = Callable[[np.ndarray, np.ndarray], np.ndarray]


def aepe_score(frames_rgb: Sequence[np.ndarray], flow: Flow) -> float:
    return consistency.clip_forward_backward_epe(frames_rgb, flow, crop=CROP)


def magnitude_score(frames_rgb: Sequence[np.ndarray], flow: Flow) -> float:
    return motion_stats.clip_motion_magnitude(frames_rgb, flow)


def build(config, metric_ids) -> family.Family:
    """A family over config.flow (a Flow) and config.flow_backend (its Backend)."""
    flow, ids = config.flow, tuple(metric_ids)

    def compute(ctx) -> family.FamilyResult:
        frames = [ctx.rgb(i) for i in range(len(ctx.frame_files))]
        columns = {}
        if AEPE in ids and ctx.movement == "static":
            columns[AEPE] = aepe_score(frames, flow)
        if MAGNITUDE in ids and ctx.movement == "dynamic":
            columns[MAGNITUDE] = magnitude_score(frames, flow)
        return family.FamilyResult(columns)

    return family.FunctionFamily("optical_flow", ids, compute, config.flow_backend)
