"""The official PAS and TCS model loops (pas_official.py, tcs_official.py) on stand-in
models whose outputs are known, so that every hand-off is checked: which frame each
model sees, the box arithmetic and SAM's original size, the masks handed to the
tracker (uint8 0/255; background = any uncovered pixel), the keyframe sequence, id
matching across segments, and what the rules of tcs.py decide from the tracks."""

import dataclasses

import cv2
import numpy as np
import pytest

from benchmarks.common import family_contract as contract
from benchmarks.vmbench import metric_specs
from benchmarks.vmbench import pas_boxes
from benchmarks.vmbench import pas_official
from benchmarks.vmbench import prompt_suite
from benchmarks.vmbench import sample as sample_lib
from benchmarks.vmbench import tcs
from benchmarks.vmbench import tcs_official
from metrics.tracking import motion_degree
from proto import scorecard_pb2
from tools.fixtures import vmbench_clips

PROMPT = prompt_suite.Prompt("0007", "Square", {"index": "0007", "subject_noun": "Square"})
BACKEND = scorecard_pb2.Backend(name=metric_specs.PAS_OFFICIAL, official=True)  # stand-in models
TCS_BACKEND = scorecard_pb2.Backend(name=metric_specs.TCS_OFFICIAL, official=True)


@dataclasses.dataclass
class Found:
    boxes_cxcywh: np.ndarray
    scores: np.ndarray
    phrases: list
    input_size: tuple


def _ctx(frames, fps=8.0):
    return sample_lib.VideoContext(sample_id="0007", frames=frames, prompt=PROMPT, fps=fps,
                                   path=None)


class Recorder:
    """Stand-in models: a detector returning fixed boxes, box-filling segmenters, and a
    tracker whose points move `speed(mask)` px per frame (one point per 100 mask px)."""

    def __init__(self, boxes, height, width):
        self.boxes, self.calls = np.asarray(boxes, np.float32).reshape(-1, 4), []
        self.height, self.width = height, width

    def detect(self, rgb, caption, box_threshold, text_threshold):
        self.calls.append(("detect", rgb.copy(), caption, box_threshold, text_threshold))
        return Found(self.boxes, np.ones(len(self.boxes), np.float32), ["square"] * len(
            self.boxes), pas_boxes.groundingdino_input_size(self.height, self.width))

    def segment(self, rgb, boxes, original_size):
        self.calls.append(("segment", boxes.copy(), original_size))
        return self._fill(boxes)

    def _fill(self, boxes):
        masks = np.zeros((len(boxes), self.height, self.width), bool)
        for mask, (x0, y0, x1, y1) in zip(masks, boxes):
            mask[int(y0):int(y1), int(x0):int(x1)] = True
        return masks

    def track(self, video, mask, grid_size, query_frame):
        self.calls.append(("track", mask.copy(), grid_size, query_frame))
        points = max(int(np.count_nonzero(mask)) // 100, 1)
        steps = np.arange(video.shape[0], dtype=np.float32)[:, None]
        speed = 3.0 if mask[0, 0] == 0 else 1.0  # the subject moves more than the rest
        tracks = np.zeros((video.shape[0], points, 2), np.float32)
        tracks[:, :, 0] = steps * speed
        return tracks, np.ones(tracks.shape[:2], bool)


def _pas_models(rec):
    return pas_official.PasModels(detect=rec.detect, segment=rec.segment, track=rec.track,
                                  video_tensor=lambda rgb: rgb.astype(np.float32))


def test_boxes_to_pixels_is_the_official_float32_order():
    boxes = pas_official.boxes_to_pixels(np.array([[0.5, 0.25, 0.2, 0.1]]), 480, 720)
    assert boxes.dtype == np.float32
    np.testing.assert_array_equal(boxes, [[288.0, 96.0, 432.0, 144.0]])


def test_pas_hand_offs_and_value():
    frames, _ = vmbench_clips.square_clip(4, frames=9)
    height, width = frames.shape[1:3]
    rec = Recorder([[0.5, 0.5, 0.25, 0.25]], height, width)
    fam = pas_official.PasOfficial(BACKEND, (), _pas_models(rec))
    result = fam.compute(_ctx(frames))
    detect, segment, background, subject = rec.calls
    np.testing.assert_array_equal(detect[1], frames[0][..., ::-1])  # RGB frame 0
    assert detect[2:] == ("Square.", 0.25, 0.20)  # the detector lower-cases, not us
    assert segment[2] == (3, pas_boxes.groundingdino_input_size(height, width)[0])
    assert background[1].dtype == np.uint8 and set(np.unique(background[1])) == {0, 255}
    assert background[2:] == (30, 0) and subject[2:] == (30, 0)
    np.testing.assert_array_equal(subject[1] == 255, rec._fill(segment[1])[0])
    np.testing.assert_array_equal(background[1] == 255, ~rec._fill(segment[1])[0])
    diag = np.hypot(width, height)
    bg, subj = 1.0 * 8 / diag, 3.0 * 8 / diag
    assert result.columns[pas_official.pas.BACKGROUND] == pytest.approx(bg, rel=1e-6)
    assert result.columns["perceptible_amplitude_score"] == pytest.approx(subj - bg, rel=1e-5)
    assert result.columns[pas_official.DETECTIONS] == 1.0


def test_pas_corrected_box_mode_and_no_detection():
    frames, _ = vmbench_clips.square_clip(4, frames=5)
    height, width = frames.shape[1:3]
    rec = Recorder([[0.5, 0.5, 0.25, 0.25]], height, width)
    pas_official.PasOfficial(BACKEND, (), _pas_models(rec),
                             box_mode=pas_boxes.SAM_BOXES_CORRECTED).compute(_ctx(frames))
    assert rec.calls[1][2] == (height, width)
    empty = Recorder(np.zeros((0, 4)), height, width)
    result = pas_official.PasOfficial(BACKEND, (), _pas_models(empty)).compute(_ctx(frames))
    assert [c[0] for c in empty.calls] == ["detect", "track"]   # no SAM, background only
    assert np.all(empty.calls[1][1] == 255)
    assert result.columns["perceptible_amplitude_score"] == result.columns[
        pas_official.pas.BACKGROUND]
    assert result.columns[pas_official.SUBJECT] is None


def test_pas_contract():
    frames, _ = vmbench_clips.square_clip(4, frames=5)
    rec = Recorder([[0.5, 0.5, 0.25, 0.25]], *frames.shape[1:3])
    contract.check_all([pas_official.PasOfficial(BACKEND, (), _pas_models(rec))], _ctx(frames),
                       metric_specs.TABLE, known_columns=(
                           *metric_specs.PER_VIDEO_IDS, pas_official.pas.BACKGROUND,
                           pas_official.SUBJECT, pas_official.DETECTIONS))


class Scripted(Recorder):
    """TCS stand-ins: detections per keyframe index from a script, propagation that keeps
    each mask except where `drop` empties it, tracks decided by the test."""

    def __init__(self, script, height, width, tracks):
        super().__init__(np.zeros((0, 4)), height, width)
        self.script, self.tracks, self.keyframe = script, tracks, 0

    def detect(self, rgb, caption, box_threshold, text_threshold):
        boxes = np.asarray(self.script.get(self.keyframe, []), np.float32).reshape(-1, 4)
        self.calls.append(("detect", self.keyframe, rgb.copy()))
        self.keyframe += 1
        return Found(boxes, np.ones(len(boxes)), [""] * len(boxes), (0, 0))

    def image_masks(self, rgb, boxes):
        self.calls.append(("image_masks", boxes.copy()))
        return self._fill(boxes)

    def propagate(self, state, masks, start, max_frames):
        self.calls.append(("propagate", start, sorted(masks)))
        last = min(start + max_frames, state - 1)
        return [(i, {k: m.copy() for k, m in masks.items()}) for i in range(start, last + 1)]

    def track(self, video, mask, grid_size, query_frame):
        self.calls.append(("track", grid_size, query_frame))
        return self.tracks(query_frame)


def _tcs_models(rec):
    return tcs_official.TcsModels(
        detect=rec.detect, image_masks=rec.image_masks,
        video_state=lambda path, rgb: len(rgb), propagate=rec.propagate, track=rec.track,
        video_tensor=lambda rgb: rgb)


def _vanished(query_frame, frames=13, points=4):
    """Tracks of an object fully invisible from the frame after `query_frame`, in the
    middle of the frame (not an edge exit, not small): a counted vanish."""
    tracks = np.zeros((frames, points, 2), np.float32)
    tracks[:, :, 0] = [100, 300, 100, 300]
    tracks[:, :, 1] = [100, 100, 300, 300]
    visible = np.ones((frames, points), bool)
    visible[query_frame + 1:] = False
    return tracks, visible


def test_tcs_keyframe_loop_ids_and_score():
    """13 frames at 4 fps: step 3, keyframes 0, 3, 6, 9, 12. The square is detected at
    keyframes 0-1, nothing at 2 (carried over), a far box at 3 (new id 2: object 1 is
    not matched, so it vanishes), the far box again at 4 (same id)."""
    frames = np.zeros((13, 384, 512, 3), np.uint8)
    frames[:, 100:200, 100:200] = (30, 160, 220)
    near, far = [0.29, 0.39, 0.2, 0.26], [0.8, 0.8, 0.1, 0.1]
    script = {0: [near], 1: [near], 3: [far], 4: [far]}
    rec = Scripted(script, 384, 512, _vanished)
    fam = tcs_official.TcsOfficial(TCS_BACKEND, (), _tcs_models(rec))
    result = fam.compute(_ctx(frames, fps=4.0))
    detects = [c for c in rec.calls if c[0] == "detect"]
    assert len(detects) == 5
    np.testing.assert_array_equal(detects[1][2], tcs_official.jpeg_roundtrip_rgb(frames[3]))
    assert [c[1:] for c in rec.calls if c[0] == "propagate"] == [
        (0, [1]), (3, [1]), (6, [1]), (9, [2]), (12, [2])]
    assert [c[1:] for c in rec.calls if c[0] == "track"] == [(50, 0), (50, 3)]  # faithful f
    cols = result.columns
    assert cols[tcs_official.OBJECTS] == 2 and cols[tcs_official.KEYFRAME_STEP] == 3
    assert cols[tcs_official.VANISH_EVENTS] == 1 and cols[tcs_official.EMERGE_EVENTS] == 1
    # vanish of object 1 (first seen at keyframe 0, queried at frame 0): invisible after
    # it, mid-frame, large -> counted, (2 - 1) / 2; emerge of object 2 (keyframe 3,
    # queried at frame 3): visible before it -> a detection error, not counted
    assert cols["temporal_coherence_score"] == pytest.approx((0.5 + 1.0) / 2)


def test_tcs_no_detection_and_low_fps():
    frames = np.zeros((9, 64, 96, 3), np.uint8)
    rec = Scripted({}, 64, 96, _vanished)
    result = tcs_official.TcsOfficial(TCS_BACKEND, (), _tcs_models(rec)).compute(_ctx(frames))
    assert result.columns["temporal_coherence_score"] == 1.0
    assert not [c for c in rec.calls if c[0] in ("propagate", "track")]
    low = tcs_official.TcsOfficial(TCS_BACKEND, (), _tcs_models(Scripted({}, 64, 96, _vanished)))
    assert low.compute(_ctx(frames, fps=0.5)).columns["temporal_coherence_score"] == 1.0
    with pytest.raises(ValueError, match="step"):
        low.compute(_ctx(frames, fps=1.5))


def test_jpeg_roundtrip_is_the_official_re_encode():
    frame = (np.random.default_rng(0).random((48, 64, 3)) * 255).astype(np.uint8)
    got = tcs_official.jpeg_roundtrip_rgb(frame)
    _, buf = cv2.imencode(".jpg", frame, [int(cv2.IMWRITE_JPEG_QUALITY), 95])
    np.testing.assert_array_equal(got, cv2.imdecode(buf, cv2.IMREAD_COLOR)[..., ::-1])
    assert not np.array_equal(got, frame[..., ::-1])  # lossy: the quirk is real


def test_motion_degree_module_is_the_one_pas_uses():
    assert pas_official.pas.motion_degree is motion_degree
    assert tcs.GRID_SIZE == 50
