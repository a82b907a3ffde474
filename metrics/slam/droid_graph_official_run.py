"""Writes testdata/droid_graph_official.json: the edges the official
FactorGraph.add_proximity_factors adds on droid_graph_cases' distances. Not a Bazel
target; it only calls the official code.

What runs: `FactorGraph.add_proximity_factors(t0, t1, rad, nms, beta, thresh)` (and, on
the frontend case, `add_neighborhood_factors(t0, t, r=3)`) of
droid_slam/factor_graph.py of princeton-vl/DROID-SLAM@2dfd39f, on a FactorGraph made with __new__ (its __init__
needs CUDA) whose video answers `counter.value = t` and `distance(ii, jj)` with the
case's float32 distances, whose existing edges are the case's (as ii/jj, no bad or
inactive ones), and whose `add_factors` records the (ii, jj) it is given. Stand-ins:
lietorch, modules.corr, geom.projective_ops, matplotlib, cuda_timer (unused by this method).

Environment: /tmp/droid-venv of droid_net_official_keys.py (torch 2.14.1, numpy 2.4.1).
    (the files of droid_net_official_keys.py, factor_graph.py among them)
    /tmp/droid-venv/bin/python metrics/slam/droid_graph_official_run.py /tmp/droid-cal/droid_up \\
        metrics/slam/testdata/droid_graph_official.json
"""

import json
import pathlib
import sys
import types

_REPO = pathlib.Path(__file__).resolve().parents[2]


def main(src, out):
    import torch  # pylint: disable=import-outside-toplevel
    sys.path.insert(0, str(_REPO))
    from metrics.slam import droid_graph_cases  # pylint: disable=import-outside-toplevel
    for name in ("lietorch", "modules", "modules.corr", "geom", "geom.projective_ops",
                 "matplotlib", "matplotlib.pyplot", "cuda_timer"):
        stub = types.ModuleType(name)
        stub.SE3, stub.CorrBlock, stub.AltCorrBlock, stub.CudaTimer = None, None, None, None
        sys.modules[name] = stub
    sys.modules["geom"].projective_ops = sys.modules["geom.projective_ops"]
    sys.modules["matplotlib"].pyplot = sys.modules["matplotlib.pyplot"]
    sys.path.insert(0, src)
    import factor_graph  # pylint: disable=import-outside-toplevel,import-error
    results = {}
    for name, c in droid_graph_cases.cases().items():
        graph = factor_graph.FactorGraph.__new__(factor_graph.FactorGraph)
        d = torch.tensor(c["distances"], dtype=torch.float32)
        graph.video = types.SimpleNamespace(counter=types.SimpleNamespace(value=c["t"]),
                                            stereo=False,
                                            distance=lambda ii, jj, beta, d=d: d.clone())
        ex = torch.tensor(c["existing"], dtype=torch.long).reshape(-1, 2)
        graph.ii, graph.jj = ex[:, 0], ex[:, 1]
        empty = torch.zeros(0, dtype=torch.long)
        graph.ii_bad = graph.jj_bad = graph.ii_inac = graph.jj_inac = empty
        graph.max_factors, graph.device = c["max_factors"], "cpu"
        added = []
        graph.add_factors = lambda ii, jj, remove=False, added=added: added.append(
            list(zip(ii.tolist(), jj.tolist())))
        graph.add_proximity_factors(t0=c["t0"], t1=c["t1"], rad=c["rad"], nms=c["nms"],
                                    beta=0.3, thresh=c["thresh"])
        results[name] = added[0]
        if name == "frontend_window":  # the frontend's initialisation edges, on the same graph
            del added[:]
            graph.add_neighborhood_factors(c["t0"], c["t"], r=3)
            results["neighborhood_" + name] = added[0]
    pathlib.Path(out).write_text(json.dumps(
        {"source": "princeton-vl/DROID-SLAM@2dfd39f droid_slam/factor_graph.py add_proximity_factors on "
                   "droid_graph_cases", "edges": results}) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
