"""CoTracker3 offline parity: worldeval's metrics/tracking/cotracker3 against co-tracker's
`CoTrackerPredictor` as vendored in VMBench (AMAP-ML/VMBench @c278a73, co-tracker/), via
stored numbers.

co-tracker is not a registry package, and its builder has no small variant (the widths
are fixed in the class), so the official side is the FULL-SIZE
`CoTrackerThreeOffline(stride=4, corr_radius=3, window_len=60)` on a short clip:
official_runs/cotracker3.py (the co-tracker source on sys.path, the locked torch 2.14.1)
ran `CoTrackerPredictor(checkpoint=..., v2=False, offline=True, window_len=60)` on the
files `//tools/calibration:official_run_inputs -- --only=cotracker3` writes: seeded random full-size weights in
the official file format (a plain state dict), the clip and its mask, and the call's
arguments (a masked grid, a query frame after 0, backward tracking). Only its numbers are
committed (cotracker3_official.csv): the model-resolution video (per frame shape, sum,
sum of squares, 32 seeded values), every query of both network calls, the raw positions
and visibility of both calls (per frame, same statistics), and every final track
coordinate and visibility flag.

Tolerance of the features row: FEATURES_TOLERANCE. The raw positions come out of 6
refinement iterations, which amplify float32 summation-order differences: equal (0) on
the CPU of the official run (AVX2), 2.2e-5 relative on an AMD EPYC with AVX-512, where
oneDNN picks other kernels. The other rows stay at the default.
"""

import dataclasses
import json
import pathlib
import tempfile
from typing import List, Tuple

import numpy as np
import torch

from metrics.tracking.cotracker3 import config as config_lib
from metrics.tracking.cotracker3 import loader
from metrics.tracking.cotracker3 import tiny_checkpoint
from tools.calibration import official_numbers
from tools.calibration import parity_table
from tools.fixtures import scene

BACKEND = loader.BACKEND_NAME
TEST = "//tools/calibration:cotracker3_parity_test"
OFFICIAL = "tools/calibration/cotracker3_official.csv"
SEED = 0
FEATURES_TOLERANCE = 1e-4
VIS_BIAS = 2.0  # so that the random model's visibility straddles the 0.9 cut
FRAMES, HEIGHT, WIDTH, SCENE_SEED = 8, 239, 427, 11
CALL = {"grid_size": 6, "grid_query_frame": 3, "backward_tracking": True}
REFERENCE = ("co-tracker as vendored in AMAP-ML/VMBench @c278a73: CoTrackerPredictor("
             "v2=False, offline=True, window_len=60) (torch 2.14.1), run outside the "
             "repository; numbers in " + OFFICIAL)
INPUTS = (f"{FRAMES} RGB frames of the //tools/fixtures room (seed {SCENE_SEED}) at "
          f"{WIDTH}x{HEIGHT}, an elliptic uint8 mask, grid_size {CALL['grid_size']}, "
          f"grid_query_frame {CALL['grid_query_frame']}, backward_tracking")
WEIGHTS = (f"random (seed {SEED}): full-size metrics/tracking/cotracker3 tiny_checkpoint."
           f"seeded_state_dict, visibility bias +{VIS_BIAS}")


def clip():
    """(1, T, 3, H, W) float32 RGB 0..255 video and its (1, 1, H, W) uint8 0/255 mask."""
    bgr = scene.render_clip(FRAMES, HEIGHT, WIDTH, SCENE_SEED)[0]
    video = torch.from_numpy(bgr[..., ::-1].copy()).permute(0, 3, 1, 2)[None].float()
    rows, cols = np.mgrid[:HEIGHT, :WIDTH]
    inside = ((cols - 0.55 * WIDTH) / (0.3 * WIDTH)) ** 2 + ((rows - 0.45 * HEIGHT) /
                                                             (0.35 * HEIGHT)) ** 2 <= 1
    mask = torch.from_numpy(inside.astype(np.uint8) * 255)[None, None]
    return video, mask


def write_inputs(folder) -> pathlib.Path:
    """<folder>/scaled_offline.pth, video.npy, mask.npy and call.json; returns the checkpoint."""
    folder = pathlib.Path(folder)
    path = tiny_checkpoint.save_checkpoint(folder, config_lib.OFFLINE_DEFAULT, SEED, VIS_BIAS)
    video, mask = clip()
    np.save(folder / "video.npy", video.numpy())
    np.save(folder / "mask.npy", mask.numpy())
    (folder / "call.json").write_text(json.dumps(CALL), encoding="utf-8")
    return path


class _Recorder(torch.nn.Module):
    """Passes calls to the network and keeps copies of what went in and came out."""

    def __init__(self, network):
        super().__init__()
        self.network = network
        self.calls = []

    def forward(self, video, queries, iters):
        out = self.network(video, queries, iters=iters)
        self.calls.append(tuple(t.clone() for t in (video, queries, out[0], out[1])))
        return out


def ours():
    """Our predictor on the parity clip: (network calls, tracks, visible)."""
    video, mask = clip()
    with tempfile.TemporaryDirectory() as tmp:
        tracker = loader.load_cotracker3_offline(write_inputs(tmp))
    recorder = _Recorder(tracker.model)
    tracker.model = recorder
    tracks, visible = tracker.track(video, segm_mask=mask, **CALL)
    return recorder.calls, tracks, visible


def visibility_agreement(visible, official) -> float:
    """The fraction of our visibility flags equal to the official run's."""
    theirs = np.concatenate([[v for _, _, v in official[(t, "visible")]]
                             for t in range(visible.shape[1])])
    return float(np.mean(visible[0].numpy().ravel() == (theirs > 0.5)))


def _diffs(name, mine, theirs) -> Tuple[str, float, float, list, list]:
    return (name,) + parity_table.differences(mine, theirs) + (mine, theirs)


def _row(check: str, what: str, parts, **common) -> parity_table.Measured:
    """One row per check (the table's rule): the largest absolute and the largest RELATIVE
    difference over its parts, each part relative to its own scale (positions and
    visibilities are not pooled, which would hide the visibilities under the pixels);
    the per-element bound likewise, part by part, at the row's floor."""
    names = ", ".join(part[0] for part in parts)
    row = parity_table.Row(BACKEND, common["test"], check, f"{names} ({what}) vs the "
                           "official run's", common["reference"], common["weights"],
                           common["inputs"], FEATURES_TOLERANCE if check == "features"
                           else parity_table.DEFAULT_TOLERANCE,
                           max(part[1] for part in parts), max(part[2] for part in parts))
    floor = parity_table.row_floor(row)
    bounds = [parity_table.element_bound(mine, theirs, row.tolerance, floor)
              for _, _, _, mine, theirs in parts]
    return parity_table.Measured(**dataclasses.asdict(row), floor=floor,
                                 element_ratio=max(ratio for ratio, _ in bounds),
                                 floor_needed=max(needed for _, needed in bounds))


def run() -> List[parity_table.Row]:
    return run_with_outputs()[0]


def run_with_outputs() -> Tuple[List[parity_table.Row], torch.Tensor, float, float]:
    """(rows, our visibility flags, the fraction of them equal to the official run's, the
    largest final track difference in pixels)."""
    official = official_numbers.read(OFFICIAL)
    calls, tracks, visible = ours()
    if len(calls) != 2:
        raise ValueError(f"expected a forward and a backward network call, saw {len(calls)}")
    (resized, queries, coords, vis), (_, back_queries, back_coords, back_vis) = calls
    common = dict(reference=REFERENCE, test=TEST, inputs=INPUTS, weights=WEIGHTS)

    def compared(name, frames):
        theirs = [np.array([v for _, _, v in official[(i, name)]]) for i in range(len(frames))]
        mine = [official_numbers.stats_like(f, official[(i, name)]) for i, f in enumerate(frames)]
        return _diffs(name, mine, theirs)

    rows = [
        _row("preprocess", "the bilinear 384x512 video: shape, mean, RMS and 32 values per "
             "frame; every query value: the masked 6x6 grid at frame 3 and the 6x6 support "
             "grid at frame 0, and their time reversal",
             [compared("video", list(resized[0])), compared("queries", [queries[0]]),
              compared("backward_queries", [back_queries[0]])], **common),
        _row("features", "raw network positions and visibility of the forward and the "
             "time-reversed call, 6 iterations: shape, mean, RMS and 32 values per frame",
             [compared(n, list(t[0])) for n, t in (
                 ("forward_coords", coords), ("forward_vis", vis),
                 ("backward_coords", back_coords), ("backward_vis", back_vis))], **common)]
    track_part = compared("tracks", list(tracks[0]))
    rows.append(_row("score", "every final track coordinate in video pixels and every "
                     "visibility flag as 0/1",
                     [track_part, compared("visible", list(visible[0].double()))], **common))
    return rows, visible, visibility_agreement(visible, official), track_part[1]
