"""The official OIS loop (ois_official.py): which box each frame's pose comes from (label,
score and NMS rules, the highest box first, the whole image when none is left), the pose
batching, the score, and the real loaders on tiny random checkpoints in the official
format through load_ois on a generated clip."""

import numpy as np
import pytest

from benchmarks.common import family_contract as contract
from benchmarks.vmbench import checkpoints as specs
from benchmarks.vmbench import metric_specs
from benchmarks.vmbench import ois_official
from benchmarks.vmbench import official_scores
from benchmarks.vmbench import prompt_suite
from benchmarks.vmbench import sample as sample_lib
from metrics.pose import object_integrity
from metrics.pose import tiny_models
from proto import scorecard_pb2
from tools.fixtures import vmbench_clips

PROMPT = prompt_suite.Prompt("0007", "a man", {"index": "0007", "subject_noun": "man"})
BACKEND = scorecard_pb2.Backend(name="rtmdet-m + rtmpose-m", official=True)  # stand-ins
KNOWN = (*metric_specs.PER_VIDEO_IDS, ois_official.LENGTH, ois_official.ANGLE,
         ois_official.PERSON_FRAMES)


def _ctx(frames):
    return sample_lib.VideoContext(sample_id="0007", frames=frames, prompt=PROMPT, fps=8.0,
                                   path=None)


def _det(*rows):
    """rows of (x1, y1, x2, y2, score, label)."""
    rows = np.array(rows, np.float32).reshape(-1, 6)
    return rows[:, :4], rows[:, 4], rows[:, 5].astype(np.int64)


def test_top_box_is_the_highest_person_box_above_threshold():
    box = ois_official.top_box(*_det(
        (0, 0, 50, 50, 0.95, 1),      # not a person: ignored however high
        (10, 10, 60, 90, 0.6, 0),
        (12, 10, 62, 90, 0.8, 0),     # listed later, higher: instance 0
        (200, 0, 260, 80, 0.7, 0)))
    np.testing.assert_array_equal(box, [12, 10, 62, 90])
    assert box.dtype == np.float32
    kept = ois_official.kept_boxes(*_det(
        (10, 10, 60, 90, 0.6, 0), (12, 10, 62, 90, 0.8, 0), (200, 0, 260, 80, 0.7, 0)))
    np.testing.assert_array_equal(kept, [[12, 10, 62, 90], [200, 0, 260, 80]])  # 0.6 suppressed
    assert ois_official.top_box(*_det((0, 0, 10, 10, 0.3, 0))) is None  # > 0.3, not >=
    assert ois_official.top_box(*_det()) is None
    with pytest.raises(ValueError, match="2 boxes, 1 scores"):
        ois_official.top_box(np.zeros((2, 4)), np.zeros(1), np.zeros(2))


class StandIn:
    """A detector scripted per frame and a pose model that records its calls and returns,
    for the first crop of call t, a track whose left forearm doubles in length from
    frame 3 (other crops: a scrambled pose that would break every part if used)."""

    def __init__(self, script):
        self.script, self.calls = script, []

    def detect(self, frames):
        return [self.script[i] for i in range(len(frames))]

    def keypoints(self, crops):
        t = len(self.calls)
        self.calls.append([np.array(box) for _, box in crops])
        pose = np.arange(17, dtype=np.float64)[:, None] * [3.0, 5.0]
        pose[:, 1] += np.arange(17) ** 2  # not collinear
        pose[9] = pose[7] + (pose[9] - pose[7]) * (2.0 if t >= 3 else 1.0)
        others = [np.random.default_rng(t + i).uniform(0, 50, (17, 2))
                  for i in range(1, len(crops))]
        return np.stack([pose] + others), np.full((len(crops), 17), 0.9)


def test_no_detection_uses_the_whole_image_and_a_frame_is_one_pose_batch():
    frames = np.zeros((5, 48, 64, 3), np.uint8)
    script = [_det((5, 5, 30, 40, 0.6, 0), (40, 5, 60, 40, 0.9, 0)),  # two people
              _det(), _det((5, 5, 30, 40, 0.25, 0)),
              _det((1, 2, 3, 4, 0.5, 1)), _det((8, 6, 20, 30, 0.4, 0))]
    models = StandIn(script)
    fam = ois_official.OisOfficial(BACKEND, (), ois_official.OisModels(
        models.detect, models.keypoints))
    result = fam.compute(_ctx(frames))
    whole = [0, 0, 64, 48]
    assert [len(c) for c in models.calls] == [2, 1, 1, 1, 1]
    np.testing.assert_array_equal(models.calls[0], [[40, 5, 60, 40], [5, 5, 30, 40]])
    np.testing.assert_array_equal([c[0] for c in models.calls[1:]],
                                  [whole, whole, whole, [8, 6, 20, 30]])
    assert result.columns[ois_official.PERSON_FRAMES] == 2.0
    # the left forearm doubled: one abnormal part of 12; the left elbow angle is kept
    assert result.columns[official_scores.OIS] == pytest.approx(1 - 0.5 / 12)
    assert result.columns[ois_official.LENGTH] == pytest.approx(11 / 12)
    assert result.columns[ois_official.ANGLE] == 1.0


def test_rejects_frames_that_are_not_bgr_uint8():
    fam = ois_official.OisOfficial(BACKEND, (), ois_official.OisModels(None, None))
    with pytest.raises(ValueError, match=r"BGR uint8 frames \(T, H, W, 3\), found float64"):
        fam.compute(_ctx(np.zeros((2, 8, 8, 3))))


@pytest.fixture(scope="module")
def tiny_paths(tmp_path_factory):
    root = tmp_path_factory.mktemp("ois")
    paths = {specs.RTMDET_M_PERSON.name: root / specs.RTMDET_M_PERSON.filename,
             specs.RTMPOSE_M_BODY7.name: root / specs.RTMPOSE_M_BODY7.filename}
    tiny_models.save_tiny_rtmdet(paths[specs.RTMDET_M_PERSON.name], seed=1, cls_bias=0.5)
    tiny_models.save_tiny_rtmpose(paths[specs.RTMPOSE_M_BODY7.name], seed=2)
    return paths


def test_load_ois_runs_the_real_models_end_to_end(tiny_paths):
    models = ois_official.load_ois(lambda spec: str(tiny_paths[spec.name]), "cpu",
                                   arch={"rtmdet": tiny_models.TINY_RTMDET,
                                         "rtmpose": tiny_models.TINY_RTMPOSE})
    frames, _ = vmbench_clips.square_clip(4, frames=4, size=(96, 128), square=32)
    fam = ois_official.OisOfficial(BACKEND, (), models)
    results = contract.check_all([fam], _ctx(frames), metric_specs.TABLE, known_columns=KNOWN)
    value = results["ois"].columns[official_scores.OIS]
    # the same pieces by hand: top box per frame (or the whole image), pose, score
    points, scores = [], []
    for frame, found in zip(frames, models.detect(frames)):
        boxes = ois_official.kept_boxes(*found)
        boxes = boxes if len(boxes) else ois_official.whole_image(96, 128)[None]
        p, s = models.keypoints([(frame, box) for box in boxes])
        points.append(p[0])
        scores.append(s[0])
    points, scores = np.stack(points), np.stack(scores)
    assert value == pytest.approx(object_integrity.object_integrity(points, scores).score)
    assert results["ois"].columns[ois_official.PERSON_FRAMES] == 4.0  # cls bias 0.5


def test_checkpoint_pins_are_openmmlab_urls_with_their_hash_prefix():
    for spec in specs.OIS:
        assert spec.url.startswith("https://download.openmmlab.com/mmpose/v1/projects/")
        assert spec.url.endswith("/" + spec.filename)
        assert len(spec.sha256) == 8 and spec.sha256 in spec.filename
        assert spec.license.startswith("Apache-2.0")


def test_backend_is_official_and_verified_by_the_parity_table():
    fact = ois_official.backend()
    assert fact.name == "rtmdet-m + rtmpose-m" and fact.official
    assert fact.parity.verified, fact.parity
    assert "torchvision" in fact.note and "exp regression" in fact.note
