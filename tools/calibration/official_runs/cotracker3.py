"""The official side of the CoTracker3 parity check; runs OUTSIDE the repository.

The official code is co-tracker as vendored in VMBench's repository (AMAP-ML/VMBench at
c278a73, folder co-tracker/): not a registry package. How cotracker3_official.csv was
produced (2026-12-01), with a scratch virtualenv on top of the /tmp/iqa one of
official_runs/clipiqa.py (torch 2.14.1, torchvision 0.29.1, numpy 2.3.5; co-tracker needs
nothing else for this path):

    python3.11 -m venv /tmp/cotracker-venv
    echo /tmp/iqa/lib/python3.11/site-packages \\
        > /tmp/cotracker-venv/lib/python3.11/site-packages/base.pth
    mkdir -p /tmp/cot && git --git-dir=<VMBench mirror> ls-tree -r --name-only HEAD co-tracker \\
        | grep '\\.py$' | while read f; do mkdir -p /tmp/cot/$(dirname $f); \\
          git --git-dir=<VMBench mirror> show HEAD:$f > /tmp/cot/$f; done
    bazel run //tools/calibration:official_run_inputs -- --only=cotracker3 --output_dir=/tmp/cotracker3_in
    /tmp/cotracker-venv/bin/python tools/calibration/official_runs/cotracker3.py \\
        /tmp/cot/co-tracker /tmp/cotracker3_in tools/calibration/cotracker3_official.csv

(`git archive` of the subtree fails on that mirror: some media blobs are absent.)

It builds `CoTrackerPredictor(checkpoint=<inputs>/scaled_offline.pth, offline=True, v2=False,
window_len=60)` exactly as VMBench's PAS/TCS scripts do (so co-tracker's own
build_cotracker reads the file), and calls it as they do, with the grid size, query
frame, backward tracking and mask in <inputs>/call.json. The network's forward is wrapped
to record what it is given and returns (the resized video, the queries, the raw
positions and visibility of the forward and of the time-reversed call); nothing else is
changed.
"""

import csv
import json
import pathlib
import sys

import numpy as np
import torch


def main(cotracker_src, inputs, out_path):
    sys.path.insert(0, cotracker_src)
    # pylint: disable=import-outside-toplevel  (the source is on sys.path only from here)
    from cotracker.predictor import CoTrackerPredictor
    inputs = pathlib.Path(inputs)
    call = json.loads((inputs / "call.json").read_text(encoding="utf-8"))
    predictor = CoTrackerPredictor(checkpoint=str(inputs / "scaled_offline.pth"), v2=False,
                                   offline=True, window_len=60)
    records = []
    network_forward = predictor.model.forward

    def recording_forward(*args, **kwargs):
        out = network_forward(*args, **kwargs)
        # Cloned: the predictor edits the queries and both outputs in place afterwards.
        records.append(tuple(t.clone() for t in (kwargs["video"], kwargs["queries"], out[0],
                                                  out[1])))
        return out

    predictor.model.forward = recording_forward
    video = torch.from_numpy(np.load(inputs / "video.npy"))
    mask = torch.from_numpy(np.load(inputs / "mask.npy"))
    tracks, visibility = predictor(video, grid_size=call["grid_size"],
                                   grid_query_frame=call["grid_query_frame"],
                                   backward_tracking=call["backward_tracking"], segm_mask=mask)
    if len(records) != 2:
        raise SystemExit(f"expected a forward and a backward call, saw {len(records)}")
    rng = np.random.default_rng(1234)
    rows = []

    def stats(i, name, t, every_value=False):
        flat = t.astype(np.float64).ravel()
        shape = "x".join(map(str, t.shape))
        if not every_value:
            rows.append((i, name, shape, "sum", repr(float(flat.sum()))))
            rows.append((i, name, shape, "sumsq", repr(float((flat ** 2).sum()))))
        picks = range(flat.size) if every_value else sorted(rng.choice(flat.size, 32,
                                                                       replace=False))
        for k in picks:
            rows.append((i, name, shape, f"at:{k}", repr(float(flat[k]))))

    (resized, queries, coords, vis), (_, back_queries, back_coords, back_vis) = records
    stats(0, "queries", queries[0].numpy(), every_value=True)
    stats(0, "backward_queries", back_queries[0].numpy(), every_value=True)
    for t in range(video.shape[1]):
        stats(t, "video", resized[0, t].numpy())
        for name, value in (("forward_coords", coords), ("forward_vis", vis),
                            ("backward_coords", back_coords), ("backward_vis", back_vis)):
            stats(t, name, value[0, t].numpy())
        stats(t, "tracks", tracks[0, t].numpy(), every_value=True)
        stats(t, "visible", visibility[0, t].numpy().astype(np.float64), every_value=True)
    with open(out_path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(("frame", "tensor", "shape", "stat", "value"))
        writer.writerows(rows)
    print(f"{len(rows)} rows, {tracks.shape[2]} tracks, visible fraction "
          f"{float(visibility.float().mean()):.3f}, torch {torch.__version__}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
