"""PAS (spec §4.1) with the official models: GroundingDINO Swin-B, SAM ViT-H, CoTracker3.

Per video, as perceptible_amplitude_score.py does it:
  1. frame 0 (RGB) to GroundingDINO with caption `subject_noun + "."` (box 0.25, text 0.20);
  2. its boxes (normalised cx, cy, w, h) to frame-0 pixels in float32, in the official
     order (x *= W, y *= H; x0y0 = c - wh/2; x1y1 = wh + x0y0);
  3. SAM ViT-H masks from those boxes, mapped to SAM's frame with the original size
     `--sam_boxes` says (faithful: the official bug, (3, H') of the GroundingDINO input;
     corrected: (H, W); pas_boxes.py);
  4. CoTracker3 on the whole RGB video (float 0..255), grid 30 from frame 0, backward
     tracking on, once on the background mask (pixels any mask leaves uncovered; all of
     the frame with no detection) and, with detections, once on the subject (the union);
  5. PAS = subject motion net of the background's (metrics/tracking/motion_degree.py).

The models are passed in (`PasModels`), loaded once per run by official_models.py.
"""

import dataclasses
from typing import Callable

import numpy as np

from benchmarks.common import family as family_lib
from benchmarks.vmbench import official_scores
from benchmarks.vmbench import pas
from benchmarks.vmbench import pas_boxes

BOX_THRESHOLD, TEXT_THRESHOLD = 0.25, 0.20  # evaluate.sh
SUBJECT = "pas_subject_motion_degree"
DETECTIONS = "pas_detections"


@dataclasses.dataclass(frozen=True)
class PasModels:
    """detect(rgb, caption, box_threshold, text_threshold) -> Detections (boxes_cxcywh,
    scores, phrases, input_size); segment(rgb, boxes_xyxy float32 (N, 4), original_size)
    -> bool (N, H, W); track(video, mask uint8 (H, W) 0/255, grid_size, query_frame) ->
    (tracks (T, P, 2), visibility (T, P)) where video = video_tensor(rgb frames)."""

    detect: Callable
    segment: Callable
    track: Callable
    video_tensor: Callable


def boxes_to_pixels(boxes_cxcywh: np.ndarray, height: int, width: int) -> np.ndarray:
    """Normalised (cx, cy, w, h) to pixel (x0, y0, x1, y1) in float32, step by step as the
    official loop does it on its float32 tensor."""
    boxes = np.asarray(boxes_cxcywh, np.float32).reshape(-1, 4)
    boxes = boxes * np.array([width, height, width, height], np.float32)
    boxes[:, :2] -= boxes[:, 2:] / np.float32(2)
    boxes[:, 2:] += boxes[:, :2]
    return boxes


def subject_masks(models: PasModels, frame0_rgb: np.ndarray, caption: str,
                  box_mode: str) -> np.ndarray:
    """Frame-0 subject masks (N, H, W) bool, N = 0 when nothing is detected."""
    height, width = frame0_rgb.shape[:2]
    found = models.detect(frame0_rgb, caption, BOX_THRESHOLD, TEXT_THRESHOLD)
    if len(found.boxes_cxcywh) == 0:
        return np.zeros((0, height, width), bool)
    expected = pas_boxes.groundingdino_input_size(height, width)
    if tuple(found.input_size) != expected:  # the faithful box size depends on it
        raise AssertionError(f"GroundingDINO input size {tuple(found.input_size)} is not "
                             f"RandomResize([800], 1333)'s {expected} for {height}x{width}")
    boxes = boxes_to_pixels(found.boxes_cxcywh, height, width)
    original = pas_boxes.sam_original_size(height, width, box_mode)
    masks = np.asarray(models.segment(frame0_rgb, boxes, original), bool)
    if masks.shape != (len(boxes), height, width):
        raise AssertionError(f"SAM returned masks of shape {masks.shape} for {len(boxes)} "
                             f"boxes on a {height}x{width} frame")
    return masks


class PasOfficial(family_lib.Family):
    """PAS with the official models (see module)."""

    name = "pas"
    metric_ids = (official_scores.PAS,)

    def __init__(self, backend, checkpoints, models: PasModels,
                 box_mode: str = pas_boxes.SAM_BOXES_FAITHFUL, grid_size: int = pas.GRID_SIZE):
        super().__init__(backend, checkpoints)
        self.models, self.box_mode, self.grid_size = models, box_mode, grid_size

    def compute(self, ctx) -> family_lib.FamilyResult:
        rgb = np.ascontiguousarray(ctx.frames[..., ::-1])
        masks = subject_masks(self.models, rgb[0], ctx.prompt.subject_noun + ".",
                              self.box_mode)
        video = self.models.video_tensor(rgb)

        def track(_frames, mask):
            tracks, _ = self.models.track(video, mask.astype(np.uint8) * 255,
                                          self.grid_size, 0)
            return tracks

        value, background, subject = pas.perceptible_amplitude(rgb, masks, track)
        return family_lib.FamilyResult({
            official_scores.PAS: value, pas.BACKGROUND: background, SUBJECT: subject,
            DETECTIONS: float(len(masks))})

