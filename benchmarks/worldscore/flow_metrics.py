"""The optical-flow metrics' arithmetic, on any `flow(frame_a, frame_b) -> (H, W, 2)`.

The flow callable takes two native-resolution RGB uint8 frames and returns the flow
from a to b in native pixels (x, y): the SEA-RAFT backend owns the official x0.5
downsample, x2 upsample and value scaling (spec §4.5). Per consecutive pair (t, t+1)
of all the instance's frames:

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

AEPE = metric_specs.metric_id("photometric_consistency", "optical_flow_aepe")
MAGNITUDE = metric_specs.metric_id("motion_magnitude", "optical_flow")
CROP = 30
Flow = Callable[[np.ndarray, np.ndarray], np.ndarray]


def forward_backward_epe(flow12: np.ndarray, flow21: np.ndarray, crop: int = CROP) -> float:
    h, w, _ = flow12.shape
    ch, cw = h - crop, w - crop
    y0, x0 = (h - ch) // 2, (w - cw) // 2
    f12 = flow12[y0:y0 + ch, x0:x0 + cw]
    f21 = flow21[y0:y0 + ch, x0:x0 + cw]
    ys, xs = np.meshgrid(np.arange(ch), np.arange(cw), indexing="ij")
    qx, qy = xs + f12[..., 0], ys + f12[..., 1]
    rx = np.clip(np.round(qx).astype(int), 0, cw - 1)
    ry = np.clip(np.round(qy).astype(int), 0, ch - 1)
    back = f21[ry, rx]
    epe = np.sqrt((qx + back[..., 0] - xs) ** 2 + (qy + back[..., 1] - ys) ** 2)
    return float(np.mean(epe))


def lower_median(values: np.ndarray) -> float:
    flat = np.sort(np.asarray(values).reshape(-1))
    return float(flat[(flat.size - 1) // 2])


def median_magnitude(flow12: np.ndarray) -> float:
    return lower_median(np.sqrt(flow12[..., 0] ** 2 + flow12[..., 1] ** 2))


def aepe_score(frames_rgb: Sequence[np.ndarray], flow: Flow) -> float:
    pairs = list(zip(frames_rgb[:-1], frames_rgb[1:]))
    if not pairs:
        raise ValueError("optical_flow_aepe needs at least 2 frames")
    return sum(forward_backward_epe(flow(a, b), flow(b, a)) for a, b in pairs) / len(pairs)


def magnitude_score(frames_rgb: Sequence[np.ndarray], flow: Flow) -> float:
    pairs = list(zip(frames_rgb[:-1], frames_rgb[1:]))
    if not pairs:
        raise ValueError("optical_flow needs at least 2 frames")
    return sum(median_magnitude(flow(a, b)) for a, b in pairs) / len(pairs)


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
