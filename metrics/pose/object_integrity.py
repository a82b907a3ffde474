"""Object integrity of a pose track: do limb lengths and joint angles stay plausible?

Input: one COCO-17 pose per frame, keypoints (T, 17, 2) in pixels and their scores
(T, 17) (the top-scoring instance of each frame; no identity tracking). The score is the
rule of the released object-integrity code (read and transcribed in words, not copied):

  length score  12 parts (keypoint pairs, LENGTH_PARTS). A part's lengths are the
                Euclidean distances of the frames where both keypoints score > 0.3 and
                the distance is > 1e-6; invalid frames are dropped, so neighbours in the
                kept sequence may be frames apart. Fewer than T // 2 kept values: the
                part is normal. Otherwise it is abnormal if any consecutive relative
                change |l[i+1] - l[i]| / l[i] exceeds 0.45 (the smoothing window is 1, so
                there is no smoothing). Score = normal parts / 12.
  angle score   8 joints (ANGLE_JOINTS, vertex in the middle). The angle is the arccos of
                the clipped cosine, in degrees, in frames where all three keypoints score
                > 0.3. Fewer than T // 3 kept values: normal. Otherwise normal iff
                max |angle[i+1] - angle[i]| <= 30. Quirks kept: a coincident keypoint pair
                gives a NaN angle, which makes the joint abnormal (NaN <= 30 is false);
                kept values but no consecutive pair (one value, or none when T < 3)
                raise ValueError, as the released code's max over nothing does.
  OIS           0.5 * length score + 0.5 * angle score, in [0, 1].

Everything is float64 (numpy), as the released code computes on Python floats.
"""

import dataclasses
from typing import List, Tuple

import numpy as np

NUM_KEYPOINTS = 17
CONFIDENCE = 0.3
LENGTH_CHANGE = 0.45
MIN_LENGTH = 1e-6
ANGLE_CHANGE = 30.0

LENGTH_PARTS: Tuple[Tuple[str, int, int], ...] = (
    ("torso", 5, 11), ("left_upper_arm", 5, 7), ("left_forearm", 7, 9),
    ("right_upper_arm", 6, 8), ("right_forearm", 8, 10), ("left_thigh", 11, 13),
    ("left_calf", 13, 15), ("right_thigh", 12, 14), ("right_calf", 14, 16),
    ("shoulder_width", 5, 6), ("hip_width", 11, 12), ("neck", 0, 5))
ANGLE_JOINTS: Tuple[Tuple[str, int, int, int], ...] = (
    ("left_elbow", 5, 7, 9), ("right_elbow", 6, 8, 10), ("left_shoulder", 7, 5, 11),
    ("right_shoulder", 8, 6, 12), ("left_hip", 5, 11, 13), ("right_hip", 6, 12, 14),
    ("left_knee", 11, 13, 15), ("right_knee", 12, 14, 16))


@dataclasses.dataclass(frozen=True)
class Integrity:
    score: float
    length_score: float
    angle_score: float
    abnormal_parts: List[str]
    abnormal_joints: List[str]


def check_pose_track(keypoints, scores) -> Tuple[np.ndarray, np.ndarray]:
    """(keypoints (T, 17, 2), scores (T, 17)) as float64; ValueError naming the shape."""
    keypoints = np.asarray(keypoints, dtype=np.float64)
    scores = np.asarray(scores, dtype=np.float64)
    if keypoints.ndim != 3 or keypoints.shape[1:] != (NUM_KEYPOINTS, 2):
        raise ValueError(f"expected keypoints of shape (T, 17, 2), found {keypoints.shape}")
    if scores.shape != keypoints.shape[:2]:
        raise ValueError(f"expected keypoint scores of shape {keypoints.shape[:2]}, found "
                         f"{scores.shape}")
    if len(keypoints) == 0:  # the released code returns 0 here; nothing to score
        raise ValueError("expected at least one frame of keypoints, found none")
    return keypoints, scores


def length_score(keypoints, scores) -> Tuple[float, List[str]]:
    keypoints, scores = check_pose_track(keypoints, scores)
    frames, abnormal = len(keypoints), []
    for name, a, b in LENGTH_PARTS:
        valid = (scores[:, a] > CONFIDENCE) & (scores[:, b] > CONFIDENCE)
        lengths = np.linalg.norm(keypoints[valid, a] - keypoints[valid, b], axis=1)
        lengths = lengths[lengths > MIN_LENGTH]
        if len(lengths) < frames // 2:
            continue
        change = np.abs(np.diff(lengths)) / lengths[:-1]
        if np.any(change > LENGTH_CHANGE):
            abnormal.append(name)
    return (len(LENGTH_PARTS) - len(abnormal)) / len(LENGTH_PARTS), abnormal


def joint_angles(keypoints, a: int, vertex: int, c: int) -> np.ndarray:
    """Degrees at `vertex` per frame; NaN where a side has zero length."""
    ba = keypoints[:, a] - keypoints[:, vertex]
    bc = keypoints[:, c] - keypoints[:, vertex]
    with np.errstate(divide="ignore", invalid="ignore"):
        cosine = np.sum(ba * bc, axis=1) / (np.linalg.norm(ba, axis=1)
                                             * np.linalg.norm(bc, axis=1))
    return np.degrees(np.arccos(np.clip(cosine, -1.0, 1.0)))


def angle_score(keypoints, scores) -> Tuple[float, List[str]]:
    keypoints, scores = check_pose_track(keypoints, scores)
    frames, abnormal = len(keypoints), []
    for name, a, vertex, c in ANGLE_JOINTS:
        valid = np.all(scores[:, [a, vertex, c]] > CONFIDENCE, axis=1)
        angles = joint_angles(keypoints[valid], a, vertex, c)
        if len(angles) < frames // 3:
            continue
        if len(angles) < 2:
            raise ValueError(f"joint {name}: {len(angles)} valid angle(s) in {frames} frames, "
                             "no change to take the maximum of (the released code fails "
                             "here too)")
        if not np.max(np.abs(np.diff(angles))) <= ANGLE_CHANGE:  # NaN: abnormal
            abnormal.append(name)
    return (len(ANGLE_JOINTS) - len(abnormal)) / len(ANGLE_JOINTS), abnormal


def object_integrity(keypoints, scores) -> Integrity:
    """The object integrity score of one pose track (see module)."""
    lengths, parts = length_score(keypoints, scores)
    angles, joints = angle_score(keypoints, scores)
    return Integrity(lengths * 0.5 + angles * 0.5, lengths, angles, parts, joints)
