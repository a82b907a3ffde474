"""OIS (spec §4.2) with the official models: RTMDet-m person boxes, RTMPose-m COCO-17.

Per frame, as object_integrity_score.py does it (OpenCV BGR frames):
  1. RTMDet-m (mmdet's own post-processing: score 0.05, NMS 0.6, 100 boxes);
  2. keep label 0 (`--det-cat-id`) with score > 0.3 (`--bbox-thr`), then mmpose's greedy
     NMS at 0.3 (`--nms-thr`): the kept order is descending score;
  3. inference_topdown on the kept boxes, or on the whole image [0, 0, W, H] when none is
     left; instance 0 (the first box) is the frame's pose.
Per video: metrics/pose/object_integrity.py on the T poses of instance 0.

Only instance 0 is ever read; it is the highest-scoring person box above 0.3 (the
greedy NMS keeps its highest box first). Batches are as upstream: the detector sees one
frame per call (load_ois) and the pose model all kept boxes of a frame in one batch.
Instances are independent in exact arithmetic, but float rounding depends on the batch,
and a random-weight check showed two SimCC bins 1.2e-6 apart whose argmax flipped with
the batch composition; same batches as upstream keep such ties as upstream breaks them
(on the same hardware).

The models are passed in (`OisModels`); `load_ois` builds them from resolved files.
"""

import dataclasses
from typing import Callable, Optional

import numpy as np

from benchmarks.common import calibration
from benchmarks.common import family as family_lib
from benchmarks.vmbench import metric_specs
from benchmarks.vmbench import official_scores
from metrics.pose import letterbox
from metrics.pose import object_integrity
from proto import scorecard_pb2

DET_CAT_ID, BBOX_THR, NMS_THR = 0, 0.3, 0.3  # object_integrity_score.py defaults
LENGTH = "ois_length_score"
ANGLE = "ois_angle_score"
PERSON_FRAMES = "ois_person_frames"   # frames with a detected person (others: whole image)
BACKEND_NOTE = (
    "the official RTMDet-m person and RTMPose-m body7 checkpoints, loaded unchanged into "
    "our torch CSPNeXt/PAFPN/RTMDetSepBNHead and CSPNeXt/RTMCCHead modules "
    "(metrics/pose/); pre/post-processing transcribed from mmdet 3.2.0 / mmpose 1.x "
    "(letterbox 640 pad 114, exp regression as mmdet 3.2.0, score 0.05, NMS 0.6 by torchvision in place of mmcv's nms; "
    "1.25 box padding, 192x256 affine crop, flip test, SimCC argmax); batches as upstream "
    "(one frame per detector call, a frame's kept boxes in one pose batch)")


@dataclasses.dataclass(frozen=True)
class OisModels:
    """detect(frames_bgr (T, H, W, 3) uint8) -> T tuples (boxes xyxy float32 (N, 4) in
    frame pixels, scores (N,), labels (N,)) after the detector's own post-processing;
    keypoints([(frame_bgr, box_xyxy float32 (4,))]) -> (keypoints (N, 17, 2), scores
    (N, 17)) in frame pixels, called once per frame with its kept boxes in order."""

    detect: Callable
    keypoints: Callable


def kept_boxes(boxes, scores, labels) -> np.ndarray:
    """The boxes inference_topdown gets, float32 (N, 4) in NMS order (highest first);
    N = 0 when no person box passes (the caller then uses the whole image)."""
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    scores = np.asarray(scores, np.float32).reshape(-1)
    labels = np.asarray(labels).reshape(-1)
    if not len(boxes) == len(scores) == len(labels):
        raise ValueError(f"detector returned {len(boxes)} boxes, {len(scores)} scores and "
                         f"{len(labels)} labels")
    dets = np.concatenate((boxes, scores[:, None]), axis=1)
    dets = dets[np.logical_and(labels == DET_CAT_ID, scores > BBOX_THR)]
    return dets[letterbox.greedy_nms(dets, NMS_THR), :4].reshape(-1, 4)


def top_box(boxes, scores, labels) -> Optional[np.ndarray]:
    """Instance 0's box (float32 (4,)), or None when the whole image is used."""
    kept = kept_boxes(boxes, scores, labels)
    return kept[0] if len(kept) else None


def backend() -> scorecard_pb2.Backend:
    """The official OIS backend, with its parity facts from the parity table."""
    name = metric_specs.BY_ID[official_scores.OIS].backends[0]
    return scorecard_pb2.Backend(
        name=name, official=True, note=BACKEND_NOTE,
        parity=calibration.parity(name, otherwise="pose pipeline arithmetic tested "
                                  "against numpy transcriptions; no official-run rows"),
        implementation="benchmarks/vmbench/ois_official.py")


def whole_image(height: int, width: int) -> np.ndarray:
    return np.array([0, 0, width, height], dtype=np.float32)


class OisOfficial(family_lib.Family):
    """OIS with the official models (see module)."""

    name = "ois"
    metric_ids = (official_scores.OIS,)

    def __init__(self, backend, checkpoints, models: OisModels):
        super().__init__(backend, checkpoints)
        self.models = models

    def poses(self, frames):
        """(keypoints (T, 17, 2), scores (T, 17), frames with a person box)."""
        height, width = frames.shape[1:3]
        found = self.models.detect(frames)
        if len(found) != len(frames):
            raise AssertionError(f"detector returned {len(found)} results for "
                                 f"{len(frames)} frames")
        points, scores, persons = [], [], 0
        for frame, detections in zip(frames, found):
            boxes = kept_boxes(*detections)
            persons += bool(len(boxes))
            boxes = boxes if len(boxes) else whole_image(height, width)[None]
            p, s = self.models.keypoints([(frame, box) for box in boxes])  # one batch
            points.append(np.asarray(p)[0, :, :2])
            scores.append(np.asarray(s)[0])
        return np.stack(points), np.stack(scores), persons

    def compute(self, ctx) -> family_lib.FamilyResult:
        frames = np.asarray(ctx.frames)
        if frames.ndim != 4 or frames.shape[-1] != 3 or frames.dtype != np.uint8 \
                or len(frames) == 0:
            raise ValueError(f"expected BGR uint8 frames (T, H, W, 3), found "
                             f"{frames.dtype} {frames.shape}")
        points, scores, persons = self.poses(frames)
        result = object_integrity.object_integrity(points, scores)
        return family_lib.FamilyResult({
            official_scores.OIS: result.score, LENGTH: result.length_score,
            ANGLE: result.angle_score, PERSON_FRAMES: float(persons)})


def load_ois(path_of, device, arch=None) -> OisModels:
    """OisModels from resolved files: path_of(spec) -> str for checkpoints.OIS; `arch`
    (tests only) = {"rtmdet": RtmdetConfig, "rtmpose": RtmposeConfig}."""
    from benchmarks.vmbench import checkpoints as specs  # pylint: disable=import-outside-toplevel
    from metrics.pose import rtmdet  # pylint: disable=import-outside-toplevel
    from metrics.pose import rtmpose  # pylint: disable=import-outside-toplevel
    arch = dict(arch or {})
    detector = rtmdet.load_rtmdet(path_of(specs.RTMDET_M_PERSON), device,
                                  arch.get("rtmdet", rtmdet.RtmdetConfig()), batch_size=1)
    estimator = rtmpose.load_rtmpose(path_of(specs.RTMPOSE_M_BODY7), device,
                                     arch.get("rtmpose", rtmpose.RtmposeConfig()))
    return OisModels(detect=detector.detect, keypoints=estimator.keypoints)
