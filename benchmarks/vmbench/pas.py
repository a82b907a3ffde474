"""PAS (spec §4.1) on the engine: the weight-free, NOT official backend.

`opencv-lk-grid`: no detector (GroundingDINO and SAM need weights), so the video takes
the official code's no-detection branch: the background mask is the whole frame, the
grid (30 x 30 over 384 x 512, as CoTracker's) is tracked from frame 0 with OpenCV
pyramidal Lucas-Kanade instead of CoTracker3, and PAS = the background's motion degree.
On a clip whose subject moves over a static background this is the moving share of the
grid times the subject's path length: a PAS-like number for smoke tests and the bundled
sample, never an official one (the scorecard says so).

The official backend (GroundingDINO Swin-B + SAM ViT-H + CoTracker3 offline) is
pas_official.py, loaded by official_models.py.
"""

import numpy as np

from benchmarks.common import family as family_lib
from benchmarks.common import trust
from benchmarks.vmbench import metric_specs
from benchmarks.vmbench import official_scores
from metrics.tracking import lk_tracker
from metrics.tracking import motion_degree
from proto import scorecard_pb2

GRID_SIZE = 30  # evaluate.sh --grid_size 30
BACKGROUND = "pas_background_motion_degree"
POINTS = "pas_background_points"


def lk_backend() -> scorecard_pb2.Backend:
    return scorecard_pb2.Backend(
        name=metric_specs.PAS_LK, official=False,
        note="weight-free stand-in: OpenCV pyramidal LK point tracks instead of CoTracker3, "
             "no GroundingDINO/SAM detection (the official no-detection branch: PAS = "
             "whole-frame motion degree): a PAS-like value, not the official PAS",
        parity=trust.not_verified("known-answer clips: a textured square moving N px per "
                                  "frame (//metrics/tracking:lk_tracker_test, "
                                  "//tests:vmbench_runner_test)"),
        digest_pinned=True, implementation="metrics/tracking/lk_tracker.py")


def perceptible_amplitude(frames: np.ndarray, masks: np.ndarray, track):
    """(PAS, background motion, subject motion or None) of one video, steps 5-8 of spec
    §4.1, given the frame-0 detection masks (N, H, W) (N = 0: nothing detected) and a
    tracker `track(frames, mask) -> tracks (T, P, 2)` (the official one: CoTracker3,
    grid 30 on the mask from frame 0, backward tracking on)."""
    height, width = frames.shape[1:3]
    subject_mask, background_mask = motion_degree.subject_and_background_masks(
        masks, height, width)
    background = motion_degree.motion_degree(track(frames, background_mask), width, height)
    subject = None
    if subject_mask is not None:
        subject = motion_degree.motion_degree(track(frames, subject_mask), width, height)
    return motion_degree.net_subject_motion(subject, background), background, subject


class PasLucasKanade(family_lib.Family):
    """PAS with the LK grid tracker and no detector (see module)."""

    name = "pas"
    metric_ids = (official_scores.PAS,)

    def __init__(self, grid_size: int = GRID_SIZE):
        super().__init__(lk_backend())
        self.grid_size = grid_size
        self.points = 0

    def _track(self, frames, mask):
        tracks, _ = lk_tracker.track_grid(frames, self.grid_size, mask)
        self.points = tracks.shape[1]
        return tracks

    def compute(self, ctx) -> family_lib.FamilyResult:
        frames = ctx.frames
        no_detections = np.zeros((0,) + frames.shape[1:3], bool)
        value, background, _ = perceptible_amplitude(frames, no_detections, self._track)
        return family_lib.FamilyResult({official_scores.PAS: value, BACKGROUND: background,
                                        POINTS: float(self.points)})
