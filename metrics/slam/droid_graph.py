"""DROID-SLAM's graph edges: which keyframe pairs a factor graph connects
(princeton-vl/DROID-SLAM droid_slam/factor_graph.py, FactorGraph.add_neighborhood_factors
and add_proximity_factors; monocular), written for worldeval.

Neighbourhood edges (the frontend's initialisation): every ordered pair (i, j) of
[t0, t1) with 0 < |i - j| <= r, row-major over i then j.

Proximity edges, given the frame distances:

Over keyframes [t0, t) x [t1, t) with the distances `d` flattened row-major
(index (i - t0) * (t - t1) + (j - t1)):

1. Only pairs with i - j >= rad are candidates (d = inf for j > i - rad), and no pair
   farther than 100.
2. Suppression around each existing edge (i, j) (active, bad or inactive): every (i + di,
   j + dj) inside the grid with |di| + |dj| <= max(min(|i - j| - 2, nms), 0) is dropped.
3. The band: for each i in [t0, t), both directions of (i, j) for j in
   [max(i - rad - 1, 0), i) are edges (and their candidates dropped).
4. The remaining candidates in increasing distance: a candidate still at most `thresh`
   is added in both directions, with the same suppression around it, until the edge
   list holds more than `max_factors` entries (checked before each addition).

Quirks kept: the band writes its drops at index (i - t0) * (t - t1) + (j - t1) even when
j < t1, so for t1 > 0 a negative offset lands on another row (or wraps to the end, as
a negative index does); the order of equal distances follows a stable sort here (the
official torch.argsort does not promise one), which only matters for exact ties.
"""

from typing import Iterable, List, Sequence, Tuple

import numpy as np

MAX_DISTANCE = 100.0
Edge = Tuple[int, int]


def _suppress(d: np.ndarray, i: int, j: int, nms: int, t: int, t0: int, t1: int) -> None:
    reach = max(min(abs(i - j) - 2, nms), 0)
    for di in range(-nms, nms + 1):
        for dj in range(-nms, nms + 1):
            if abs(di) + abs(dj) <= reach:
                i1, j1 = i + di, j + dj
                if t0 <= i1 < t and t1 <= j1 < t:
                    d[(i1 - t0) * (t - t1) + (j1 - t1)] = np.inf


def neighborhood_edges(t0: int, t1: int, r: int = 3) -> List[Edge]:
    """The (i, j) edges add_neighborhood_factors adds (mono: |i - j| > 0)."""
    return [(i, j) for i in range(t0, t1) for j in range(t0, t1) if 0 < abs(i - j) <= r]


def proximity_edges(distances: Sequence[float], t: int, *, rad: int, nms: int,
                    thresh: float, max_factors: int, t0: int = 0, t1: int = 0,
                    existing: Iterable[Edge] = ()) -> List[Edge]:
    """The (i, j) edges add_proximity_factors would add, in its order (see module doc).

    Args:
      distances: (t - t0) * (t - t1) frame distances, row-major over i in [t0, t) and
        j in [t1, t).
      t: number of keyframes.
      rad, nms, thresh, max_factors: the graph's settings (the backend: 2, 3, 22.0 and
        16 * t; the frontend: 2, 1, 16.0 and its own limit).
      t0, t1: the first row and column of the grid.
      existing: edges already in the graph (active, bad and inactive ones).
    """
    d = np.array(distances, dtype=np.float64).reshape(-1)
    if not 0 <= t0 <= t or not 0 <= t1 <= t or d.size != (t - t0) * (t - t1):
        raise ValueError(f"expected {(t - t0) * (t - t1)} distances for rows [{t0}, {t}) "
                         f"and columns [{t1}, {t}), got {d.size}")
    ii = np.repeat(np.arange(t0, t), t - t1)
    jj = np.tile(np.arange(t1, t), t - t0)
    d[ii - rad < jj] = np.inf
    d[d > MAX_DISTANCE] = np.inf
    for i, j in existing:
        _suppress(d, int(i), int(j), nms, t, t0, t1)
    edges: List[Edge] = []
    for i in range(t0, t):
        for j in range(max(i - rad - 1, 0), i):
            edges += [(i, j), (j, i)]
            d[(i - t0) * (t - t1) + (j - t1)] = np.inf
    for k in np.argsort(d, kind="stable"):
        if d[k] > thresh:
            continue
        if len(edges) > max_factors:
            break
        i, j = int(ii[k]), int(jj[k])
        edges += [(i, j), (j, i)]
        _suppress(d, i, j, nms, t, t0, t1)
    return edges
