"""MemoBench Geo3DConsistency: Depth Anything V2 depth cosines, V and R phases (spec §4.4).

Official arithmetic (`geometry_3d_consistency(gen, n_sample=3, start, end)` in
`automated/metrics/geometry.py`, called by run_eval for V = (0, h) and R = (r, N-1)):

- start = max(0, min(start, N-1)), end = max(start, min(end, N-1)),
  n_range = end - start + 1; n_range <= 1 scores (0.0, 0.0) without running the model;
  otherwise the frames start + int(i * (n_range-1) / 2) for i = 0, 1, 2.
- Per frame: d = predicted_depth.squeeze(); d = (d - min) / (max - min + 1e-8);
  flatten; L2-normalise (float32 torch, as the official code).
- The 2 consecutive pairs: cosine_similarity clipped to [0, 1]; the call returns
  (round(mean, 4), round(min, 4)).
- GeoConsistencyMean = round((mean_V + mean_R) / 2, 4);
  GeoConsistencyMin = round(min(min_V, min_R), 4).

The official code runs the model twice per pair (4 calls per phase); here each
distinct frame of both phases goes through one batched call.
"""

import dataclasses
from typing import List, Sequence, Tuple

import numpy as np
import torch
import torch.nn.functional as F

from metrics.depth import depth_anything
from metrics.video import sampling

N_SAMPLE = 3
MINMAX_EPS = 1e-8


@dataclasses.dataclass(frozen=True)
class PhaseGeo:
    """One official call.

    Attributes:
        name: "V" or "R".
        start / end: The (clamped) inclusive range.
        indices: Sampled frames; empty when n_range <= 1.
        pair_similarities: Clipped cosines of consecutive sampled frames.
        mean / min: The call's values (rounded to 4 dp), (0.0, 0.0) when nothing ran.
    """

    name: str
    start: int
    end: int
    indices: Tuple[int, ...]
    pair_similarities: Tuple[float, ...]
    mean: float
    min: float


@dataclasses.dataclass(frozen=True)
class GeoResult:
    """Geo3DConsistency's raw values for one clip: GeoConsistencyMean/Min and the calls."""

    mean: float
    min: float
    phases: Tuple[PhaseGeo, ...]


def phase_indices(start: int, end: int, num_frames: int) -> Tuple[int, int, List[int]]:
    """(clamped start, clamped end, sampled indices); no indices when n_range <= 1."""
    if num_frames <= 0:
        raise ValueError(f"num_frames must be positive, got {num_frames}")
    last = num_frames - 1
    start = max(0, min(start, last))
    end = max(start, min(end, last))
    if end - start + 1 <= 1:
        return start, end, []
    return start, end, sampling.evenly_spaced(start, end, N_SAMPLE)


def depth_vector(depth) -> torch.Tensor:
    """(1, H*W) float32: min-max normalised (eps 1e-8), flattened, L2-normalised."""
    depth = depth if isinstance(depth, torch.Tensor) else torch.as_tensor(np.asarray(depth))
    depth = depth.float().squeeze()
    depth = (depth - depth.min()) / (depth.max() - depth.min() + MINMAX_EPS)
    return F.normalize(depth.flatten().unsqueeze(0), dim=-1)


def pair_similarities(depths: Sequence) -> List[float]:
    """Clipped cosine of each consecutive pair of depth maps."""
    vectors = [depth_vector(d) for d in depths]
    return [float(np.clip(float(F.cosine_similarity(a, b.to(a.device)).item()), 0.0, 1.0))
            for a, b in zip(vectors[:-1], vectors[1:])]


def _summary(sims: Sequence[float]) -> Tuple[float, float]:
    if not sims:
        return 0.0, 0.0
    return round(float(np.mean(sims)), 4), round(float(np.min(sims)), 4)


def phase_from_depths(depths: Sequence) -> Tuple[float, float]:
    """One call's (round(mean, 4), round(min, 4)); (0.0, 0.0) with fewer than 2 maps."""
    return _summary(pair_similarities(depths) if len(depths) >= 2 else [])


def combine(phase_v: Tuple[float, float], phase_r: Tuple[float, float]) -> Tuple[float, float]:
    """run_eval's (GeoConsistencyMean, GeoConsistencyMin) from the two calls' values."""
    return (round((phase_v[0] + phase_r[0]) / 2, 4), round(min(phase_v[1], phase_r[1]), 4))


def geo_from_depths(depths_v: Sequence, depths_r: Sequence) -> Tuple[float, float]:
    """(GeoConsistencyMean, GeoConsistencyMin) from the sampled depth maps of V and R.

    Args:
        depths_v: The V call's depth maps in order (3, or none when n_range <= 1).
        depths_r: The R call's depth maps in order.
    """
    return combine(phase_from_depths(depths_v), phase_from_depths(depths_r))


def geo_details(frames: Sequence[np.ndarray], h: int, r: int, model, processor,
                device) -> GeoResult:
    """Geo3DConsistency of a clip, with each call's indices and pair cosines.

    Args:
        frames: The clip's BGR uint8 frames (already max-side resized), N >= 1.
        h: H keyframe (V = (0, h)); r: R keyframe (R = (r, N-1)).
        model, processor: From depth_anything.load_depth_anything.
        device: Where the model is.
    """
    calls = [("V",) + phase_indices(0, h, len(frames)),
             ("R",) + phase_indices(r, len(frames) - 1, len(frames))]
    distinct = sorted({i for _, _, _, indices in calls for i in indices})
    depths = {}
    if distinct:
        maps = depth_anything.depth_maps(model, processor, [frames[i] for i in distinct], device)
        depths = dict(zip(distinct, maps))
    phases = []
    for name, start, end, indices in calls:
        sampled = [depths[i] for i in indices]
        sims = pair_similarities(sampled) if len(sampled) >= 2 else []
        mean, minimum = _summary(sims)
        phases.append(PhaseGeo(name, start, end, tuple(indices), tuple(sims), mean, minimum))
    mean, minimum = combine((phases[0].mean, phases[0].min), (phases[1].mean, phases[1].min))
    return GeoResult(mean, minimum, tuple(phases))


def geo_consistency(frames: Sequence[np.ndarray], h: int, r: int, model, processor,
                    device) -> Tuple[float, float]:
    """(GeoConsistencyMean, GeoConsistencyMin) of a clip; see geo_details."""
    result = geo_details(frames, h, r, model, processor, device)
    return result.mean, result.min
