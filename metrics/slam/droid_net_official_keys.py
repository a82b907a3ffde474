"""Writes testdata/droid_net_keys.json: the state-dict names and shapes of the official
DroidNet at full size, built from the official code with random weights (no checkpoint).
Not a Bazel target; nothing here is official code: it only calls it.

What runs: `DroidNet()` of droid_slam/droid_net.py with modules/{extractor,gru,clipping}.py
of princeton-vl/DROID-SLAM@2dfd39f0dcad44012ca7bbb8aa70b55edbfa9c99, then `state_dict()`
names -> shapes. Its imports that need DROID's CUDA extensions and are not
used to build the modules (lietorch, torch_scatter, geom.*, modules.corr) are empty
stand-ins. The checkpoint-format facts (the "module." prefix, the 3-channel delta/weight
output convs the official loader cuts to 2) are read from droid.py::load_weights and
recorded beside the keys.

Environment (2026-12-01): python3.11 -m venv /tmp/droid-venv whose base.pth lists the
worktree's Bazel `external/pypi__*/site` folders (torch 2.14.1, numpy 2.4.1). Files:
    G="git --git-dir=<mirror of princeton-vl/DROID-SLAM>"; mkdir -p /tmp/droid-cal/droid_up/modules
    for f in droid_net.py factor_graph.py modules/__init__.py modules/extractor.py modules/gru.py \\
        modules/clipping.py; do $G show HEAD:droid_slam/$f > /tmp/droid-cal/droid_up/$f; done
    /tmp/droid-venv/bin/python metrics/slam/droid_net_official_keys.py /tmp/droid-cal/droid_up \\
        metrics/slam/testdata/droid_net_keys.json
"""

import json
import pathlib
import sys
import types


def main(src, out):
    for name in ("lietorch", "torch_scatter", "geom", "geom.ba", "geom.graph_utils",
                 "geom.projective_ops", "modules.corr"):
        stub = types.ModuleType(name)
        for attr in ("SE3", "scatter_mean", "BA", "graph_to_edge_list", "keyframe_indicies",
                     "CorrBlock"):
            setattr(stub, attr, None)
        sys.modules[name] = stub
    sys.path.insert(0, src)
    import droid_net  # pylint: disable=import-outside-toplevel,import-error
    net = droid_net.DroidNet()
    keys = {k: list(v.shape) for k, v in net.state_dict().items()}
    pathlib.Path(out).write_text(json.dumps({
        "source": "DroidNet() of princeton-vl/DROID-SLAM@2dfd39f droid_slam/droid_net.py, state_dict shapes",
        "checkpoint_prefix": "module.",
        "checkpoint_head_channels": 3,
        "head_keys": ["update.weight.2.weight", "update.weight.2.bias",
                      "update.delta.2.weight", "update.delta.2.bias"],
        "num_parameters": sum(v.numel() for v in net.state_dict().values()),
        "keys": keys}, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
