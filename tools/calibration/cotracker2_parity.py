"""CoTracker2 online parity (MiraBench tracking strength): worldeval's
metrics/tracking/cotracker2 against upstream co-tracker 82e02e8's
`CoTrackerOnlinePredictor(window_len=8, v2=True)` (torch.hub `cotracker2_online`), via
stored numbers.

co-tracker is not a registry package, so the official side is two records of one scratch
run outside the repository on the calibration inputs (metrics/tracking/cotracker2/
calibration_inputs: seeded FULL-SIZE weights saved as the official plain state dict, a
seeded 14-frame 96x128 video, grid 10, the official online chunking: calls on frames
0-7, 4-11, 8-13):

* tools/calibration/cotracker2_official.csv (provenance in cotracker2_official.json;
  format of official_numbers): what the predictor fed its network, the bilinear align_corners=True
  384x512 resize of each of the 14 frames (shape, sum, sum of squares and 524 values
  per frame: 512 seeded positions and every channel's four corners) and every value of
  the 100 grid queries;
* metrics/tracking/cotracker2/testdata/calibration.json: per call the tracks in video pixels and the visibility probabilities at 12
  points of every frame, their sums over all points, every point of the last history,
  the visibility flags at the 12 points and their count, and the concatenated tracking
  strength.

Here our loader reads the same weights from the official file format and OUR predictor
runs the same calls (one thread, as the official run); its network calls are recorded
(`online_step`'s resized chunk and queries, and its visibility probabilities):

* preprocess: each call's resized chunk, frame ind + j against the stored frame (so a
  wrong chunk start fails too), and every query value;
* features: the tracks and visibility probabilities at the stored points of every call,
  each call's all-point mean and RMS of the tracks and mean probability, and every point
  of the last history;
* score: the concatenated-history tracking strength (metrics/tracking/online_history,
  MiraBench's official arithmetic), the visibility flags at the stored points and the
  flag counts of every call.

Each part keeps its own scale (pixels are not pooled with probabilities); the
per-element bound is applied part by part at the row's floor. The inputs' digests and
the upstream commit are checked first, so a changed generator reads as a stale record,
not as a parity difference. Bit-exact on the CPU that made both records (AMD EPYC with
AVX-512).
"""

import dataclasses
import json
import tempfile
from typing import Dict, List, Sequence, Tuple

import numpy as np
import torch

from benchmarks.common import paths
from metrics.tracking import online_history
from metrics.tracking.cotracker2 import calibration_inputs
from metrics.tracking.cotracker2 import config as config_lib
from metrics.tracking.cotracker2 import loader
from metrics.tracking.cotracker2 import tiny_checkpoint
from tools.calibration import official_numbers
from tools.calibration import parity_table

BACKEND = "cotracker2_online"  # MiraBench's scorecard name (model_families.COTRACKER_BACKEND)
TEST = "//tools/calibration:cotracker2_parity_test"
RECORD = calibration_inputs.CALIBRATION
PREPROCESS = "tools/calibration/cotracker2_official.csv"
PROVENANCE = "tools/calibration/cotracker2_official.json"
COMMIT = "82e02e8029753ad4ef13cf06be7f4fc5facdda4d"
REFERENCE = (f"facebookresearch/co-tracker @{COMMIT[:7]}: CoTrackerOnlinePredictor("
             "window_len=8, v2=True) (torch.hub cotracker2_online), torch 2.14.1 CPU, run "
             f"outside the repository; numbers in {RECORD} and {PREPROCESS}")
WEIGHTS = (f"random (seed {calibration_inputs.WEIGHT_SEED}): full-size "
           "metrics/tracking/cotracker2 tiny_checkpoint.seeded_state_dict(ONLINE_DEFAULT)")
INPUTS = (f"calibration_inputs.seeded_video(): {calibration_inputs.FRAMES} frames of drifting "
          f"sine gratings at {calibration_inputs.WIDTH}x{calibration_inputs.HEIGHT}, grid "
          f"{calibration_inputs.GRID_SIZE}, online calls on frames 0-7, 4-11, 8-13")

Part = Tuple[str, list, list]  # (name, ours, theirs): lists of equally shaped arrays


def official() -> dict:
    """calibration.json, its inputs checked against ours.

    Raises:
        ValueError: Our seeded inputs, or the upstream commit, are not the record's.
    """
    record = json.loads(paths.runfile(RECORD).read_text(encoding="utf-8"))
    provenance = json.loads(paths.runfile(PROVENANCE).read_text(encoding="utf-8"))
    state = tiny_checkpoint.seeded_state_dict(config_lib.ONLINE_DEFAULT,
                                              seed=calibration_inputs.WEIGHT_SEED)
    inputs = record["inputs"]
    stale = [name for name, same in (
        ("weights", calibration_inputs.weights_digest(state) == inputs["weights_sha256"]),
        ("video", calibration_inputs.video_digest(calibration_inputs.seeded_video())
         == inputs["video_sha256"]),
        ("commit", record["upstream"]["commit"] == provenance["upstream"]["commit"] == COMMIT))
        if not same]
    if stale:
        raise ValueError(f"{RECORD} was made on other inputs ({', '.join(stale)}): stale")
    return record


def ours() -> List[Dict[str, torch.Tensor]]:
    """Per online call: the network's resized chunk, queries and visibility probabilities,
    and the predictor's tracks and flags (our code on the record's inputs)."""
    state = tiny_checkpoint.seeded_state_dict(config_lib.ONLINE_DEFAULT,
                                              seed=calibration_inputs.WEIGHT_SEED)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = f"{tmp}/{tiny_checkpoint.FILE_NAME}"
            torch.save(state, path)
            tracker = loader.load_cotracker2_online(path)
        seen = []
        online_step = tracker.model.online_step

        def recording(video, queries, *args, **kwargs):
            tracks, visibility = online_step(video, queries, *args, **kwargs)
            seen.append({"video": video.clone(), "queries": queries.clone(),
                         "probabilities": visibility.clone()})
            return tracks, visibility

        tracker.model.online_step = recording
        video = calibration_inputs.seeded_video()
        tracker(video_chunk=video, is_first_step=True, grid_size=calibration_inputs.GRID_SIZE)
        for ind in _chunk_starts():
            tracks, visible = tracker(video_chunk=video[:, ind:ind + 2 * tracker.step])
            seen[-1].update(tracks=tracks, visible=visible)
    finally:
        torch.set_num_threads(threads)
    return seen


def _chunk_starts() -> List[int]:
    return online_history.chunk_starts(calibration_inputs.FRAMES,
                                       config_lib.ONLINE_DEFAULT.step)


def _stored(entry) -> np.ndarray:
    """A stored float32 array (shortest float32 reprs), in float64."""
    values = np.asarray(entry["values"], dtype=np.float32).astype(np.float64)
    return values.reshape(entry["shape"])


def _numpy(tensor: torch.Tensor) -> np.ndarray:
    return tensor.detach().double().numpy()


def preprocess_parts(calls) -> List[Part]:
    numbers = official_numbers.read(PREPROCESS)
    mine, theirs = [], []
    for call, ind in zip(calls, _chunk_starts()):
        for j, frame in enumerate(call["video"][0]):
            wanted = numbers[(ind + j, "video")]
            mine.append(official_numbers.stats_like(frame, wanted))
            theirs.append(np.array([value for _, _, value in wanted]))
    queries = [(official_numbers.stats_like(c["queries"][0], numbers[(0, "queries")]),
                np.array([value for _, _, value in numbers[(0, "queries")]])) for c in calls]
    return [("video", mine, theirs),
            ("queries", [q for q, _ in queries], [t for _, t in queries])]


def features_parts(calls, record) -> List[Part]:
    tracks, vis = ([], []), ([], [])
    for call, stored in zip(calls, record["calls"]):
        points, sums = stored["points"], stored["all_points"]
        mine_tracks, probabilities = _numpy(call["tracks"][0]), _numpy(call["probabilities"][0])
        tracks[0].extend([mine_tracks[:, points], np.array([
            mine_tracks.mean(), np.sqrt((mine_tracks ** 2).mean())])])
        count = mine_tracks.size
        tracks[1].extend([_stored(stored["tracks"]), np.array([
            sums["track_sum"] / count, np.sqrt(sums["track_sum_of_squares"] / count)])])
        vis[0].extend([probabilities[:, points], np.array([probabilities.mean()])])
        vis[1].extend([_stored(stored["visibility"]),
                       np.array([sums["visibility_sum"] / probabilities.size])])
    last = record["last_history_all_points"]
    return [("tracks", *tracks), ("visibility", *vis),
            ("last history tracks", [_numpy(calls[-1]["tracks"][0])], [_stored(last["tracks"])]),
            ("last history visibility", [_numpy(calls[-1]["probabilities"][0])],
             [_stored(last["visibility"])])]


def score_parts(calls, record) -> List[Part]:
    strength = online_history.concatenated_history_displacement(
        [call["tracks"][0].numpy() for call in calls])
    flags, counts = ([], []), ([], [])
    for call, stored in zip(calls, record["calls"]):
        mine = call["visible"][0].double().numpy()
        shape = stored["visibility"]["shape"]
        flags[0].append(mine[:, stored["points"]])
        flags[1].append(np.asarray(stored["visible"], dtype=np.float64).reshape(shape))
        counts[0].append(np.array([mine.sum()]))
        counts[1].append(np.array([float(stored["all_points"]["visible_count"])]))
    return [("tracking strength", [np.array([strength])],
             [np.array([record["tracking_strength_concatenated"]])]),
            ("visible flags", *flags), ("visible counts", *counts)]


def measure(check: str, what: str, parts: Sequence[Part]) -> parity_table.Measured:
    """One row over `parts`: the largest absolute and relative difference of any part, each
    on its own scale; the per-element bound part by part at the row's floor."""
    names = ", ".join(name for name, _, _ in parts)
    diffs = [parity_table.differences(mine, theirs) for _, mine, theirs in parts]
    row = parity_table.Row(BACKEND, TEST, check, f"{names} ({what}) vs the official run's",
                           REFERENCE, WEIGHTS, INPUTS, parity_table.DEFAULT_TOLERANCE,
                           max(a for a, _ in diffs), max(r for _, r in diffs))
    floor = parity_table.row_floor(row)
    bounds = [parity_table.element_bound(mine, theirs, row.tolerance, floor)
              for _, mine, theirs in parts]
    return parity_table.Measured(**dataclasses.asdict(row), floor=floor,
                                 element_ratio=max(ratio for ratio, _ in bounds),
                                 floor_needed=max(needed for _, needed in bounds))


def run() -> List[parity_table.Row]:
    record = official()
    calls = ours()
    return [
        measure("preprocess", "every call's bilinear align_corners 384x512 chunk, frame by "
                "frame against the stored frame: shape, mean, RMS and 524 values (512 seeded, "
                "the 12 corners); every value of the 10x10 grid queries of every call",
                preprocess_parts(calls)),
        measure("features", "every call's tracks in video pixels and visibility "
                "probabilities at 12 points of every frame, each call's all-point mean and "
                "RMS of the tracks and mean probability; every point of the last history",
                features_parts(calls, record)),
        measure("score", "the concatenated-history tracking strength "
                "(metrics/tracking/online_history, MiraBench's arithmetic); the visibility "
                "flags (> 0.6) at the 12 points and the flag count of every call",
                score_parts(calls, record))]
