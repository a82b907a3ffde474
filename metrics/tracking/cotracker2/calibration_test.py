"""Our CoTracker2 online tracker against stored outputs of upstream co-tracker.

testdata/calibration.json holds what upstream co-tracker (facebookresearch/co-tracker at
82e02e8, torch.hub's `cotracker2_online`: `CoTrackerOnlinePredictor(checkpoint=None,
window_len=8, v2=True)`, its state dict loaded strictly) returned in a scratch run outside
the repository, on the seeded full-size weights `tiny_checkpoint.seeded_state_dict(
ONLINE_DEFAULT, seed=0)` and the seeded video of `calibration_inputs.seeded_video()`,
called as the official online loop does (a first step with grid_size=10, then
`video[:, ind:ind + 8]` for ind in 0, 4, 8: histories of 8, 12 and 14 frames). Here the
same weights are saved in the official file format, loaded through
`loader.load_cotracker2_online`, and OUR predictor is run on the same video; its outputs
must equal the stored upstream ones:

* tracks (video pixels): every point of the last history, 12 points of every history, and
  the sum and sum of squares over all points of every history: max |ours - upstream| <=
  1e-5 x max |upstream| (the calibration kit's float32 tolerance);
* visibility probabilities (the network's sigmoid, before the predictor's cut): the same
  points and sums, max |diff| <= 1e-5; the flags (probability > 0.6) equal wherever the
  upstream probability is not within 1e-5 of the cut;
* the concatenated-history mean displacement (the official tracking strength) within
  1e-5 relative.

The inputs are checked first (weight and video digests), so a changed generator reads as
a stale table, not as a parity failure. CPU, one full-size network, three calls.
"""

import json
import pathlib

import numpy as np
import pytest
import torch

from metrics.tracking import online_history
from metrics.tracking.cotracker2 import calibration_inputs
from metrics.tracking.cotracker2 import config as config_lib
from metrics.tracking.cotracker2 import loader
from metrics.tracking.cotracker2 import tiny_checkpoint

CALIBRATION = pathlib.Path(__file__).parent / "testdata" / "calibration.json"
FRAMES, HEIGHT, WIDTH = (calibration_inputs.FRAMES, calibration_inputs.HEIGHT,
                         calibration_inputs.WIDTH)
GRID_SIZE = calibration_inputs.GRID_SIZE
seeded_video = calibration_inputs.seeded_video
weights_digest = calibration_inputs.weights_digest
CHUNK_STARTS = online_history.chunk_starts(FRAMES, config_lib.ONLINE_DEFAULT.step)
RELATIVE_TOLERANCE = 1e-5  # of max |upstream|, float32 (tools/calibration/README.md)
VISIBILITY_TOLERANCE = 1e-5


def _load():
    return json.loads(CALIBRATION.read_text(encoding="utf-8"))


def _array(entry):
    """A stored float32 array (written as shortest float32 reprs), in float64."""
    values = np.asarray(entry["values"], dtype=np.float32).astype(np.float64)
    return values.reshape(entry["shape"])


@pytest.fixture(scope="module")
def state():
    return tiny_checkpoint.seeded_state_dict(config_lib.ONLINE_DEFAULT, seed=0)


@pytest.fixture(scope="module")
def ours(state, tmp_path_factory):
    """Per call: (tracks [L, N, 2], visibility probabilities [L, N], flags [L, N])."""
    path = tmp_path_factory.mktemp("cotracker2") / tiny_checkpoint.FILE_NAME
    torch.save(state, path)
    torch.set_num_threads(1)
    tracker = loader.load_cotracker2_online(path)
    probabilities = []
    online_step = tracker.model.online_step

    def spy(*args, **kwargs):
        tracks, visibility = online_step(*args, **kwargs)
        probabilities.append(visibility)
        return tracks, visibility

    tracker.model.online_step = spy
    video = seeded_video()
    assert tracker(video_chunk=video, is_first_step=True, grid_size=GRID_SIZE) == (None, None)
    calls = []
    for ind in CHUNK_STARTS:
        tracks, visible = tracker(video_chunk=video[:, ind:ind + 2 * tracker.step])
        calls.append((tracks[0].double().numpy(), probabilities[-1][0].double().numpy(),
                      visible[0].numpy()))
    return calls


def test_the_inputs_are_the_recorded_ones(state):
    inputs = _load()["inputs"]
    assert weights_digest(state) == inputs["weights_sha256"]
    video = seeded_video()
    assert calibration_inputs.video_digest(video) == inputs["video_sha256"]
    assert (inputs["frames"], inputs["height"], inputs["width"]) == (FRAMES, HEIGHT, WIDTH)
    assert inputs["grid_size"] == GRID_SIZE and inputs["chunk_starts"] == CHUNK_STARTS
    assert _load()["upstream"]["commit"] == "82e02e8029753ad4ef13cf06be7f4fc5facdda4d"


def test_the_history_lengths_are_upstreams(ours):
    lengths = [c["history_frames"] for c in _load()["calls"]]
    assert lengths == [8, 12, 14]
    assert [tracks.shape for tracks, _, _ in ours] == [(n, GRID_SIZE ** 2, 2) for n in lengths]


def _points_and_sums(stored, tracks, probabilities):
    points = stored["points"]
    yield "tracks", tracks[:, points], _array(stored["tracks"])
    yield "visibility", probabilities[:, points], _array(stored["visibility"])
    sums = stored["all_points"]
    yield "track sum", tracks.sum(), sums["track_sum"]
    yield "track sum of squares", (tracks ** 2).sum(), sums["track_sum_of_squares"]
    yield "visibility sum", probabilities.sum(), sums["visibility_sum"]


@pytest.mark.parametrize("call", range(3))
def test_tracks_and_visibility_equal_upstreams(ours, call):
    stored = _load()["calls"][call]
    tracks, probabilities, _ = ours[call]
    for what, got, want in _points_and_sums(stored, tracks, probabilities):
        got, want = np.asarray(got), np.asarray(want)
        scale = 1.0 if what == "visibility" else np.abs(want).max()
        tolerance = VISIBILITY_TOLERANCE if what == "visibility" else RELATIVE_TOLERANCE
        diff = np.abs(got - want).max() / scale
        assert diff <= tolerance, f"call {call} {what}: relative difference {diff:.3g}"


@pytest.mark.parametrize("call", range(3))
def test_visibility_flags_equal_upstreams(ours, call):
    stored = _load()["calls"][call]
    _, probabilities, flags = ours[call]
    want_probabilities = _array(stored["visibility"])
    want_flags = np.asarray(stored["visible"], dtype=bool).reshape(want_probabilities.shape)
    decided = np.abs(want_probabilities - _load()["visible_above"]) > VISIBILITY_TOLERANCE
    got = flags[:, stored["points"]]
    assert np.array_equal(got[decided], want_flags[decided])
    assert int(flags.sum()) == stored["all_points"]["visible_count"]


def test_the_last_history_equals_upstreams_at_every_point(ours):
    stored = _load()["last_history_all_points"]
    tracks, probabilities, _ = ours[-1]
    want = _array(stored["tracks"])
    diff = np.abs(tracks - want).max() / np.abs(want).max()
    assert diff <= RELATIVE_TOLERANCE, f"relative difference {diff:.3g}"
    diff = np.abs(probabilities - _array(stored["visibility"])).max()
    assert diff <= VISIBILITY_TOLERANCE, f"visibility difference {diff:.3g}"


def test_the_tracking_strength_equals_upstreams(ours):
    want = _load()["tracking_strength_concatenated"]
    got = online_history.concatenated_history_displacement(
        [tracks.astype(np.float32) for tracks, _, _ in ours])
    assert got == pytest.approx(want, rel=RELATIVE_TOLERANCE)
