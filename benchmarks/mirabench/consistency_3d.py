"""MiraBench 3D consistency: SIFT / FLANN / RANSAC epipolar error (spec §3.3).

Official source: mira-space/Miradata@f7e72ff evaluation/consistency_3D.py
(EvaluateErrBetweenTwoImage, adapted from SoraGeoEvaluate) and the five
calculate_3D_consistency_* methods of evaluation/__init__.py. Per pair (frame i, frame
i + interval) of the official schedule (`pair_schedule`):

  both frames cv2.resize'd to 1280x720 (INTER_LINEAR, aspect ignored); SIFT_create(40000);
  FlannBasedMatcher().knnMatch(k=2) with Lowe ratio 0.85; findFundamentalMat(RANSAC, 3 px);
  e = |l . p2| / sqrt(l0^2 + l1^2), l = F [p1, 1], over the RANSAC inliers;
  num_pts = ratio-test matches, num_inliers_F = sum(inliers), keep_ratio = their ratio,
  mean_err = mean(e) (the official "mae" is the same expression), rmse = sqrt(mean(e^2)).

The video's value of each is the pandas mean over its pairs (NaN skipped); with no pair
(N <= 10 frames) the official code returns NaN, i.e. an empty cell. Any failing pair
(F not found, too few matches) makes the official metric None for the video.

Deviation in how, not what: upstream re-runs the whole pipeline once per metric (five
times per pair); we compute the five values once per pair. Upstream is not repeatable run
to run (FLANN's randomised kd-trees draw from OpenCV's RNG): we seed OpenCV's RNG
(cv2.setRNGSeed) before every pair, so a run is deterministic, and record the seed.
"""

import dataclasses
from typing import Dict, List, Sequence, Tuple

import cv2
import numpy as np

INTERVALS = (60, 50, 40, 30, 20, 10)   # consistency_3D_interval_list (default setting)
RANSAC_THRESHOLD = 3.0                  # consistency_3D_ransac_th
SIZE = (1280, 720)                      # cv2.resize (width, height)
SIFT_FEATURES = 40000
RATIO = 0.85
DEFAULT_SEED = 0
COLUMNS = ("3D_consistency_num_pts", "3D_consistency_num_inliers_F",
           "3D_consistency_keep_ratio", "3D_consistency_mean_err", "3D_consistency_rmse")


def pair_schedule(num_frames: int) -> List[Tuple[int, int]]:
    """The official (left, right) 0-based frame pairs for a clip of `num_frames`."""
    pairs = []
    for interval in INTERVALS:
        step = int((num_frames - interval) / 5)   # int() truncates toward zero, as upstream
        if step <= 0:
            continue
        for i in range(0, num_frames, step):
            if i + interval > num_frames - 1:
                break
            pairs.append((i, i + interval))
    return pairs


class PairFailed(ValueError):
    """The official pipeline raises on this pair (the metric is None for the video)."""


def epipolar_errors(inliers: np.ndarray, src: np.ndarray, dst: np.ndarray,
                    fundamental: np.ndarray) -> np.ndarray:
    """Distances of each inlier's p2 to the epipolar line F p1 (float64, as upstream)."""
    keep = np.asarray(inliers).reshape(-1) != 0
    p1 = np.concatenate([src.reshape(-1, 2)[keep].astype(np.float64),
                         np.ones((int(keep.sum()), 1))], axis=1)
    p2 = np.concatenate([dst.reshape(-1, 2)[keep].astype(np.float64),
                         np.ones((int(keep.sum()), 1))], axis=1)
    lines = p1 @ fundamental.T
    return np.abs(np.sum(lines * p2, axis=1)) / np.sqrt(lines[:, 0] ** 2 + lines[:, 1] ** 2)


def pair_values(left_bgr: np.ndarray, right_bgr: np.ndarray, seed: int = DEFAULT_SEED,
                ransac_threshold: float = RANSAC_THRESHOLD) -> Dict[str, float]:
    """The five values of one pair (COLUMNS order); PairFailed where upstream raises."""
    cv2.setRNGSeed(int(seed))
    img1, img2 = cv2.resize(left_bgr, SIZE), cv2.resize(right_bgr, SIZE)
    sift = cv2.SIFT_create(SIFT_FEATURES)
    kp1, des1 = sift.detectAndCompute(img1, None)
    kp2, des2 = sift.detectAndCompute(img2, None)
    if des1 is None or des2 is None or len(kp1) < 2 or len(kp2) < 2:
        raise PairFailed(f"SIFT found {len(kp1)} and {len(kp2)} keypoints (knnMatch k=2 "
                         "needs 2 in each)")
    try:
        matches = cv2.FlannBasedMatcher().knnMatch(des1, des2, k=2)
        good = [m for m, n in matches if m.distance < RATIO * n.distance]
    except (cv2.error, ValueError) as e:
        raise PairFailed(f"FLANN knnMatch failed: {e}") from e
    src = np.float32([kp1[m.queryIdx].pt for m in good]).reshape(-1, 1, 2)
    dst = np.float32([kp2[m.trainIdx].pt for m in good]).reshape(-1, 1, 2)
    try:
        fundamental, inliers = cv2.findFundamentalMat(src, dst, cv2.RANSAC, ransac_threshold)
    except cv2.error as e:
        raise PairFailed(f"findFundamentalMat failed on {len(good)} matches: "
                         f"{str(e).strip().splitlines()[-1]}") from e
    if fundamental is None or inliers is None or fundamental.shape != (3, 3):
        raise PairFailed(f"no fundamental matrix from {len(good)} ratio-test matches")
    errors = epipolar_errors(inliers, src, dst, fundamental)
    num_inliers = float(np.sum(inliers))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_err = float(np.mean(errors)) if errors.size else float("nan")
        rmse = float(np.sqrt(np.mean(errors ** 2))) if errors.size else float("nan")
    return dict(zip(COLUMNS, (float(len(good)), num_inliers, num_inliers / len(good),
                              mean_err, rmse)))


@dataclasses.dataclass(frozen=True)
class VideoResult:
    values: Dict[str, float]        # column -> pandas-style mean over pairs (NaN: no pair)
    pairs: int
    seed: int


def video_values(frames_bgr: Sequence[np.ndarray], seed: int = DEFAULT_SEED) -> VideoResult:
    """The five video values over the official pair schedule (PairFailed on any pair)."""
    pairs = pair_schedule(len(frames_bgr))
    rows = [pair_values(frames_bgr[i], frames_bgr[j], seed) for i, j in pairs]
    values = {}
    for column in COLUMNS:
        finite = [r[column] for r in rows if not np.isnan(r[column])]
        values[column] = float(np.mean(finite)) if finite else float("nan")
    return VideoResult(values, len(pairs), seed)
