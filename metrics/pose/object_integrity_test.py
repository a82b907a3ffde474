"""The object integrity rules against a plain-Python transcription of spec §4.2 (lists,
math, per-frame loops: nothing shared with the numpy module), on random and hand-made
pose tracks, and the binary on an .npz."""

import json
import math
import pathlib
import subprocess

import numpy as np
import pytest

from metrics.pose import object_integrity as oi

BINARY = pathlib.Path("metrics/pose/object_integrity")


def _reference(keypoints, scores):
    """Spec §4.2 in plain Python: returns (OIS, length score, angle score)."""
    frames = len(keypoints)
    normal_parts = 0
    for _, a, b in oi.LENGTH_PARTS:
        kept = []
        for t in range(frames):
            if scores[t][a] > 0.3 and scores[t][b] > 0.3:
                length = math.dist(keypoints[t][a], keypoints[t][b])
                if length > 1e-6:
                    kept.append(length)
        if len(kept) < frames // 2 or all(
                abs(kept[i + 1] - kept[i]) / kept[i] <= 0.45 for i in range(len(kept) - 1)):
            normal_parts += 1
    normal_joints = 0
    for _, a, v, c in oi.ANGLE_JOINTS:
        kept = []
        for t in range(frames):
            if all(scores[t][i] > 0.3 for i in (a, v, c)):
                ba = [keypoints[t][a][k] - keypoints[t][v][k] for k in range(2)]
                bc = [keypoints[t][c][k] - keypoints[t][v][k] for k in range(2)]
                norms = math.hypot(*ba) * math.hypot(*bc)
                if norms == 0:
                    kept.append(math.nan)
                    continue
                cosine = (ba[0] * bc[0] + ba[1] * bc[1]) / norms
                kept.append(math.degrees(math.acos(min(1.0, max(-1.0, cosine)))))
        if len(kept) < frames // 3:
            normal_joints += 1
            continue
        jumps = [abs(kept[i + 1] - kept[i]) for i in range(len(kept) - 1)]
        if not any(math.isnan(j) for j in jumps) and max(jumps) <= 30:
            normal_joints += 1
    length, angle = normal_parts / 12, normal_joints / 8
    return 0.5 * length + 0.5 * angle, length, angle


def _standing(frames=12):
    """A plausible standing pose, static, all keypoints confident."""
    base = np.array([[50, 10], [48, 8], [52, 8], [45, 9], [55, 9], [40, 25], [60, 25],
                     [35, 40], [65, 40], [33, 55], [67, 55], [43, 60], [57, 60], [42, 80],
                     [58, 80], [41, 100], [59, 100]], np.float64)
    return np.repeat(base[None], frames, axis=0), np.full((frames, 17), 0.9)


def _check(keypoints, scores):
    got = oi.object_integrity(keypoints, scores)
    want = _reference(keypoints.tolist(), scores.tolist())
    assert (got.score, got.length_score, got.angle_score) == pytest.approx(want, abs=1e-12)
    return got


def test_a_static_pose_is_whole():
    got = _check(*_standing())
    assert got.score == 1.0 and not got.abnormal_parts and not got.abnormal_joints


def test_a_limb_that_doubles_in_length():
    keypoints, scores = _standing()
    keypoints[6:, 9] = keypoints[6:, 7] + 2 * (keypoints[6:, 9] - keypoints[6:, 7])
    got = _check(keypoints, scores)
    assert got.abnormal_parts == ["left_forearm"]
    assert got.abnormal_joints == []  # the direction did not change
    assert got.length_score == 11 / 12


def test_an_elbow_that_snaps_40_degrees():
    keypoints, scores = _standing()
    elbow, wrist = keypoints[0, 8], keypoints[0, 10]
    turn = math.radians(40)
    rot = np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]])
    keypoints[7:, 10] = elbow + (wrist - elbow) @ rot.T
    got = _check(keypoints, scores)
    assert got.abnormal_joints == ["right_elbow"] and got.abnormal_parts == []
    keypoints[7:, 10] = elbow + (wrist - elbow) @ np.array(
        [[math.cos(0.4), -math.sin(0.4)], [math.sin(0.4), math.cos(0.4)]]).T  # 22.9 degrees
    assert _check(keypoints, scores).abnormal_joints == []


def test_low_confidence_frames_are_dropped_and_too_few_count_as_normal():
    keypoints, scores = _standing(12)
    keypoints[5, 9] = keypoints[5, 7] + 3 * (keypoints[5, 9] - keypoints[5, 7])
    assert _check(keypoints, scores).abnormal_parts == ["left_forearm"]
    scores[5, 9] = 0.3  # not > 0.3: that frame's forearm is dropped
    assert _check(keypoints, scores).abnormal_parts == []
    scores[:7, 9] = 0.1  # 5 valid lengths < 12 // 2: normal whatever they do
    keypoints[8, 9] *= 5
    got = _check(keypoints, scores)
    assert "left_forearm" not in got.abnormal_parts


def test_dropped_frames_make_far_frames_neighbours():
    """A part valid only in frames 0-5 and 9-11 compares frame 5 with frame 9."""
    keypoints, scores = _standing(12)
    for frames, factor in ((slice(6, 9), 1.3), (slice(9, None), 1.6)):
        keypoints[frames, 15] = keypoints[frames, 13] + factor * (
            keypoints[frames, 15] - keypoints[frames, 13])
    assert _check(keypoints, scores).abnormal_parts == []  # +30%, then +23%
    scores[6:9, 15] = 0.0
    assert _check(keypoints, scores).abnormal_parts == ["left_calf"]  # +60% from 5 to 9


def test_a_coincident_keypoint_makes_its_joint_abnormal():
    keypoints, scores = _standing()
    keypoints[3, 7] = keypoints[3, 5]  # left elbow on the left shoulder: NaN angles
    got = _check(keypoints, scores)
    assert {"left_elbow", "left_shoulder"} <= set(got.abnormal_joints)


def test_one_valid_angle_raises_as_upstream():
    keypoints, scores = _standing(3)
    scores[1:, 9] = 0.0  # left elbow angle valid in frame 0 only, 1 >= 3 // 3
    with pytest.raises(ValueError, match="left_elbow"):
        oi.object_integrity(keypoints, scores)
    with pytest.raises(ValueError, match="shape"):
        oi.object_integrity(keypoints[:, :16], scores)


def test_random_tracks_match_the_transcription():
    rng = np.random.default_rng(7)
    outcomes = set()
    for _ in range(60):
        frames = int(rng.integers(3, 30))
        keypoints, scores = _standing(frames)
        keypoints += rng.normal(0, rng.choice([0.5, 4, 12]), keypoints.shape)
        scores = rng.uniform(0.1, 1.0, scores.shape)
        try:
            want = _reference(keypoints.tolist(), scores.tolist())
        except ValueError:  # max() of no change: the module must refuse it too
            with pytest.raises(ValueError):
                oi.object_integrity(keypoints, scores)
            continue
        got = oi.object_integrity(keypoints, scores)
        assert (got.score, got.length_score, got.angle_score) == pytest.approx(want, abs=1e-12)
        outcomes.add(got.score)
    assert len(outcomes) > 5  # the cases exercise different branches


def test_binary_prints_the_score_last(tmp_path):
    keypoints, scores = _standing()
    keypoints[6:, 9] = keypoints[6:, 7] + 2 * (keypoints[6:, 9] - keypoints[6:, 7])
    np.savez(tmp_path / "track.npz", keypoints=keypoints, scores=scores)
    out = subprocess.run([BINARY, f"--keypoints={tmp_path / 'track.npz'}"], check=True,
                         capture_output=True, text=True).stdout.strip().splitlines()
    assert float(out[-1]) == pytest.approx(0.5 * 11 / 12 + 0.5)
    got = json.loads(subprocess.run([BINARY, f"--keypoints={tmp_path / 'track.npz'}", "--json"],
                                    check=True, capture_output=True, text=True).stdout)
    assert got["abnormal_parts"] == ["left_forearm"]
    np.savez(tmp_path / "bad.npz", points=keypoints)
    bad = subprocess.run([BINARY, f"--keypoints={tmp_path / 'bad.npz'}"], capture_output=True,
                         text=True)
    assert bad.returncode == 2 and "bad.npz" in bad.stderr and "keypoints" in bad.stderr
