"""Writes testdata/droid_net_official_outputs.json: the official DroidNet's outputs at
full size on weights and inputs worldeval made (droid_net_parity_inputs), as summaries
(shape, sum, sum of |x|, the first 6 values). Not a Bazel target; it only calls the
official code.

What runs: the official `DroidNet` of droid_slam/droid_net.py (princeton-vl/DROID-SLAM@2dfd39f,
modules/{extractor,gru,clipping}.py; the files of droid_net_official_keys.py), loaded
with the official loader's key handling (the "module." prefix removed, the delta/weight
heads cut to 2 channels) from the droid.pth-format file written by
`droid_net_parity_inputs.write_checkpoint`, then `extract_features(images)` and
`update(net, inp, corr, motion, ii, jj)` in float32 on the CPU. Stand-ins: lietorch,
geom.*, modules.corr (unused to build or run these parts) and torch_scatter.scatter_mean
(a per-group loop: mean over the edges of each unique ii).

Environment: /tmp/droid-venv of droid_net_official_keys.py (torch 2.14.1).
    /tmp/droid-venv/bin/python metrics/slam/droid_net_official_outputs.py /tmp/droid-cal/droid_up \\
        /tmp/droid-cal/droid_parity.pth metrics/slam/testdata/droid_net_official_outputs.json
"""

import json
import pathlib
import sys
import types

_REPO = pathlib.Path(__file__).resolve().parents[2]


def _scatter_mean(src, index, dim):
    import torch  # pylint: disable=import-outside-toplevel
    if dim != 1:
        raise ValueError("only dim=1 is used by DroidNet")
    return torch.stack([src[:, index == k].mean(dim=1) for k in range(int(index.max()) + 1)], 1)


def main(src, ckpt, out):
    import torch  # pylint: disable=import-outside-toplevel
    sys.path.insert(0, str(_REPO))
    from metrics.slam import droid_net_parity_inputs as inputs  # pylint: disable=import-outside-toplevel
    for name in ("lietorch", "torch_scatter", "geom", "geom.ba", "geom.graph_utils",
                 "geom.projective_ops", "modules.corr"):
        stub = types.ModuleType(name)
        for attr in ("SE3", "BA", "graph_to_edge_list", "keyframe_indicies", "CorrBlock"):
            setattr(stub, attr, None)
        stub.scatter_mean = _scatter_mean
        sys.modules[name] = stub
    sys.path.insert(0, src)
    import droid_net  # pylint: disable=import-outside-toplevel,import-error
    inputs.write_checkpoint(ckpt)
    state = {k.replace("module.", ""): v for k, v in torch.load(ckpt, weights_only=True).items()}
    for key in ("update.weight.2.weight", "update.weight.2.bias", "update.delta.2.weight",
                "update.delta.2.bias"):
        state[key] = state[key][:2]
    net = droid_net.DroidNet()
    net.load_state_dict(state)
    net.eval()
    images, corr, motion, ii, jj = inputs.tensors()
    with torch.no_grad():
        fmaps, hidden, inp = net.extract_features(images.clone())
        outs = net.update(hidden[:, ii], inp[:, ii], corr, motion, ii, jj)
    names = ("fmaps", "net", "inp", "update_net", "delta", "weight", "eta", "upmask")
    pathlib.Path(out).write_text(json.dumps({
        "source": "official DroidNet (princeton-vl/DROID-SLAM@2dfd39f) on droid_net_parity_inputs",
        "outputs": {n: inputs.summary(t) for n, t in zip(names, (fmaps, hidden, inp) + outs)}},
        indent=1) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:4])
