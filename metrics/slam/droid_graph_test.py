"""droid_graph.py: the official edges on recorded cases, and hand-checked small graphs."""

import json
import pathlib

import numpy as np
import pytest

from metrics.slam import droid_graph
from metrics.slam import droid_graph_cases

_OFFICIAL = pathlib.Path(__file__).parent / "testdata" / "droid_graph_official.json"


@pytest.mark.parametrize("name", sorted(droid_graph_cases.cases()))
def test_equals_the_official_add_proximity_factors(name):
    case = droid_graph_cases.cases()[name]
    want = [tuple(e) for e in json.loads(_OFFICIAL.read_text())["edges"][name]]
    got = droid_graph.proximity_edges(
        case["distances"], case["t"], rad=case["rad"], nms=case["nms"], thresh=case["thresh"],
        max_factors=case["max_factors"], t0=case["t0"], t1=case["t1"], existing=case["existing"])
    assert got == want


def test_band_only_when_every_distance_is_above_thresh():
    t = 5
    got = droid_graph.proximity_edges(np.full(t * t, 50.0), t, rad=2, nms=3, thresh=22.0,
                                      max_factors=80)
    band = [(i, j) for i in range(t) for j in range(max(i - 3, 0), i)]
    assert got == [e for i, j in band for e in ((i, j), (j, i))]


def test_closest_far_pair_is_added_and_suppresses_its_neighbours():
    t = 8
    d = np.full((t, t), 30.0)
    d[7, 0], d[7, 1], d[6, 0] = 1.0, 2.0, 3.0   # (7, 1) and (6, 0) lie within nms of (7, 0)
    d[6, 1] = 5.0                                # |di| + |dj| = 2 > nms 1: kept
    got = droid_graph.proximity_edges(d.reshape(-1), t, rad=2, nms=1, thresh=22.0,
                                      max_factors=200)
    extra = got[2 * sum(min(i, 3) for i in range(t)):]
    assert extra == [(7, 0), (0, 7), (6, 1), (1, 6)]


def test_bad_sizes_raise():
    with pytest.raises(ValueError, match="expected 16 distances"):
        droid_graph.proximity_edges(np.zeros(15), 4, rad=2, nms=1, thresh=1.0, max_factors=9)


def test_neighborhood_edges_equal_the_official():
    case = droid_graph_cases.cases()["frontend_window"]
    want = json.loads(_OFFICIAL.read_text())["edges"]["neighborhood_frontend_window"]
    got = droid_graph.neighborhood_edges(case["t0"], case["t"], r=3)
    assert got == [tuple(e) for e in want]
    assert droid_graph.neighborhood_edges(0, 3, r=1) == [(0, 1), (1, 0), (1, 2), (2, 1)]
