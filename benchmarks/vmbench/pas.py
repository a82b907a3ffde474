"""PAS (spec §4.1) on the engine: the weight-free, NOT official backend.

`opencv-lk-grid`: no detector (GroundingDINO and SAM need weights), so the video takes
the official code's no-detection branch: the background mask is the whole frame, the
grid (30 x 30 over 384 x 512, as CoTracker's) is tracked from frame 0 with OpenCV
pyramidal Lucas-Kanade instead of CoTracker3, and PAS = the background's motion degree.
On a clip whose subject moves over a static background this is the moving share of the
grid times the subject's path length: a PAS-like number for smoke tests and the bundled
sample, never an official one (the scorecard says so).

The official backend (GroundingDINO Swin-B + SAM ViT-H + CoTracker3 offline) is not
loaded by this version; see model_metrics.py.
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
             "whole-frame motion degree)",
        parity=trust.not_verified("known-answer clips: a textured square moving N px per "
                                  "frame (//metrics/tracking:lk_tracker_test, "
                                  "//tests:vmbench_runner_test)"),
        digest_pinned=True, implementation="metrics/tracking/lk_tracker.py")


class PasLucasKanade(family_lib.Family):
    """PAS with the LK grid tracker and no detector (see module)."""

    name = "pas"
    metric_ids = (official_scores.PAS,)

    def __init__(self, grid_size: int = GRID_SIZE):
        super().__init__(lk_backend())
        self.grid_size = grid_size

    def compute(self, ctx) -> family_lib.FamilyResult:
        frames = ctx.frames
        height, width = frames.shape[1:3]
        # No detections: no subject mask, and the background is the whole frame.
        _, background_mask = motion_degree.subject_and_background_masks(
            np.zeros((0, height, width), bool), height, width)
        tracks, _ = lk_tracker.track_grid(frames, self.grid_size, background_mask)
        background = motion_degree.motion_degree(tracks, width, height)
        value = motion_degree.net_subject_motion(None, background)
        return family_lib.FamilyResult({official_scores.PAS: value, BACKGROUND: background,
                                        POINTS: float(tracks.shape[1])})
