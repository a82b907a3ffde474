"""Deterministic proximity-edge cases (distances, settings, existing edges) for
droid_graph_test.py and the official run that recorded the official edges
(droid_graph_official_run.py -> testdata/droid_graph_official.json)."""

import numpy as np


def cases():
    """name -> dict(distances (float32 list), t, t0, t1, rad, nms, thresh, max_factors,
    existing [(i, j)])."""
    rng = np.random.default_rng(7)

    def dist(t, t0, t1, scale):
        n = (t - t0) * (t - t1)
        return (rng.uniform(0, scale, n).astype(np.float32)).tolist()

    return {
        "backend_t12": dict(distances=dist(12, 0, 0, 40.0), t=12, t0=0, t1=0, rad=2, nms=3,
                            thresh=22.0, max_factors=16 * 12, existing=[]),
        "backend_t20_capped": dict(distances=dist(20, 0, 0, 30.0), t=20, t0=0, t1=0, rad=2,
                                   nms=3, thresh=22.0, max_factors=60, existing=[]),
        "frontend_window": dict(distances=dist(15, 6, 3, 25.0), t=15, t0=6, t1=3, rad=2,
                                nms=1, thresh=16.0, max_factors=200,
                                existing=[(7, 6), (6, 7), (9, 4), (12, 5), (14, 9)]),
    }
