"""TCS (spec §4.3) with the official models: GroundingDINO Swin-B, SAM 2.1, CoTracker3.

The model loop of temporal_coherence_score.py, around the pure rules of tcs.py and the
identity matching of tcs_ids.py:

  - step = int(fps) - 1 (tcs.keyframe_step); keyframes s = 0, step, 2*step, ...;
  - each keyframe, JPEG-re-encoded at quality 95 and decoded back (the official
    extract_frames_from_video), goes to GroundingDINO (caption `subject_noun + "."`, box
    0.25, text 0.20); its boxes to pixels (float32, official order) and to the SAM 2.1
    image predictor (one mask each);
  - new masks take ids by IoU > 0.75 against the objects the previous segment tracked
    into this frame (tcs_ids.match_masks); with no detection, those objects carry over;
  - no object at all: step + 1 empty frames; otherwise the SAM 2.1 video predictor,
    reset, takes every object's mask at s and propagates up to `step` frames on, giving
    one {id: mask} per frame (s .. min(s + step, T - 1)), empty masks included; the last
    frame's objects are the next keyframe's `previous`;
  - the per-frame list reduces to one dict per keyframe (tcs.keyframe_dicts), and every
    vanish/emerge event is tracked with CoTracker3 (grid 50 on its mask, backward
    tracking on, from its query frame: faithful = the keyframe index, tcs.py) and decided.

The models are passed in (`TcsModels`), loaded once per run by official_models.py.
"""

import dataclasses
from typing import Callable, Dict, List, Tuple

import cv2
import numpy as np

from benchmarks.common import family as family_lib
from benchmarks.vmbench import official_scores
from benchmarks.vmbench import pas_official
from benchmarks.vmbench import tcs
from benchmarks.vmbench import tcs_ids

JPEG_QUALITY = 95
OBJECTS = "tcs_objects"
VANISH_EVENTS, EMERGE_EVENTS = "tcs_vanish_events", "tcs_emerge_events"
COUNTED = "tcs_events_counted"
KEYFRAME_STEP = "tcs_keyframe_step"


@dataclasses.dataclass(frozen=True)
class TcsModels:
    """detect: as PasModels.detect; image_masks(rgb, boxes_xyxy float32 (N, 4)) -> bool
    (N, H, W); video_state(path, rgb frames) -> what propagate needs of the video;
    propagate(state, {id: mask (H, W)}, start, max_frames) -> [(frame index, {id: mask})];
    track and video_tensor: as PasModels'."""

    detect: Callable
    image_masks: Callable
    video_state: Callable
    propagate: Callable
    track: Callable
    video_tensor: Callable


def jpeg_roundtrip_rgb(frame_bgr: np.ndarray, quality: int = JPEG_QUALITY) -> np.ndarray:
    """The official keyframe image: cv2 JPEG encode at `quality`, decode, BGR -> RGB."""
    ok, buffer = cv2.imencode(".jpg", frame_bgr, [int(cv2.IMWRITE_JPEG_QUALITY), quality])
    if not ok:
        raise ValueError("OpenCV could not JPEG-encode a frame")
    return cv2.cvtColor(cv2.imdecode(buffer, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)


def keyframe_masks(models: TcsModels, image_rgb: np.ndarray, caption: str) -> np.ndarray:
    """SAM 2.1 masks (N, H, W) of GroundingDINO's detections on one keyframe."""
    height, width = image_rgb.shape[:2]
    found = models.detect(image_rgb, caption, pas_official.BOX_THRESHOLD,
                          pas_official.TEXT_THRESHOLD)
    if len(found.boxes_cxcywh) == 0:
        return np.zeros((0, height, width), bool)
    boxes = pas_official.boxes_to_pixels(found.boxes_cxcywh, height, width)
    masks = np.asarray(models.image_masks(image_rgb, boxes), bool)
    if masks.shape != (len(boxes), height, width):
        raise AssertionError(f"SAM 2.1 returned masks of shape {masks.shape} for "
                             f"{len(boxes)} boxes on a {height}x{width} frame")
    return masks


def segment_objects(models: TcsModels, frames_bgr: np.ndarray, state, caption: str,
                    step: int) -> Tuple[List[Dict[int, np.ndarray]], int]:
    """(per-frame {id: mask} list of the propagation segments, objects_count)."""
    per_frame: List[Dict[int, np.ndarray]] = []
    previous: Dict[int, np.ndarray] = {}
    objects_count = 0
    if step < 0:  # fps < 1: the official range() yields no keyframe
        return per_frame, objects_count
    for start in range(0, len(frames_bgr), step):
        masks = keyframe_masks(models, jpeg_roundtrip_rgb(frames_bgr[start]), caption)
        if len(masks):
            current, objects_count = tcs_ids.match_masks(list(masks), previous, objects_count)
        else:
            current = tcs_ids.carry_over(previous)
        if not current:
            per_frame.extend({} for _ in range(step + 1))
            continue
        segment = models.propagate(state, current, start, step)
        if not segment:
            raise AssertionError(f"SAM 2.1 propagation from frame {start} yielded no frame")
        per_frame.extend(objects for _, objects in segment)
        previous = dict(segment[-1][1])
    return per_frame, objects_count


class TcsOfficial(family_lib.Family):
    """TCS with the official models (see module)."""

    name = "tcs"
    metric_ids = (official_scores.TCS,)

    def __init__(self, backend, checkpoints, models: TcsModels,
                 query_mode: str = tcs.QUERY_FAITHFUL, grid_size: int = tcs.GRID_SIZE):
        super().__init__(backend, checkpoints)
        self.models, self.query_mode, self.grid_size = models, query_mode, grid_size

    def compute(self, ctx) -> family_lib.FamilyResult:
        frames = ctx.frames
        height, width = frames.shape[1:3]
        step = tcs.keyframe_step(ctx.fps)  # ValueError for 1 <= fps < 2: this video only
        rgb = np.ascontiguousarray(frames[..., ::-1])
        state = self.models.video_state(ctx.path, rgb)
        per_frame, objects_count = segment_objects(
            self.models, frames, state, ctx.prompt.subject_noun + ".", step)
        dicts = tcs.keyframe_dicts(per_frame, step)
        video = None

        def track(mask, query_frame):
            nonlocal video
            if video is None:  # only videos with an event pay for the tensor
                video = self.models.video_tensor(rgb)
            return self.models.track(video, np.asarray(mask, np.uint8) * 255,
                                     self.grid_size, query_frame)

        value, details = tcs.evaluate(dicts, objects_count, step, track, width, height,
                                      self.query_mode)
        kinds = [d["kind"] for d in details]
        return family_lib.FamilyResult({
            official_scores.TCS: value, OBJECTS: float(objects_count),
            VANISH_EVENTS: float(kinds.count(tcs.VANISH)),
            EMERGE_EVENTS: float(kinds.count(tcs.EMERGE)),
            COUNTED: float(sum(bool(d.get("counts")) for d in details)),
            KEYFRAME_STEP: float(step)})
