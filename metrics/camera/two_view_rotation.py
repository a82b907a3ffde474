"""A weight-free camera rotation estimator: "classical-two-view-rotation".

NOT the official backend (that is MapAnything, a learned model). It
estimates the camera-to-world rotation of every generated frame from the
frames alone, so that CameraControllability can be computed with no weights.

For each pair of consecutive frames (a, b):

1. Features: SIFT keypoints (once per grayscale frame), brute-force L2
   matching with Lowe's ratio test (0.75). SIFT rather than ORB: its
   keypoints are sub-pixel, which bounds the rotation accuracy, and it still
   finds features on small frames (ORB's 31-pixel border leaves little of a
   96x128 frame).
2. Rotation-only model (a camera that only rotates maps pixels by the
   homography H = K R K^-1): a RANSAC homography picks the inliers, then R is
   the least-squares rotation between their unit bearing vectors K^-1 x
   (orthogonal Procrustes, via SVD), and the inliers are re-picked with R
   itself, REFINE_STEPS times. On the fixture this is about 4x more
   accurate than projecting K^-1 H K onto the nearest rotation, because it
   fits 3 parameters instead of 8.
3. Essential matrix: cv2.findEssentialMat (RANSAC), then cv2.recoverPose
   (cheirality check). Its rotation is trusted only if recoverPose keeps at
   least half of the RANSAC inliers; with a short baseline most points lie
   beyond recoverPose's 50-baseline distance limit, or are ambiguous, and
   the decomposition can even return the 180-degree "twisted pair".
4. Model choice: if the rotation-only model re-projects the points that
   recoverPose kept within ROTATION_ONLY_PX pixels (median), the parallax is
   too small for the essential matrix to be well posed: "homography".
   Otherwise, if step 3 is trusted: "essential". If only one model is
   available it is used; if none, or there are fewer than MIN_MATCHES
   matches, the relative rotation is the identity and the pair counts as a
   failure ("failed").

Thresholds (RANSAC_PX = ROTATION_ONLY_PX = 2 px) come from a sweep over the
fixture clips: at 1-1.5 px the rotation-only model lost too many inliers on
some noisy 96x128 pairs, and a wrong essential fit (13 degrees off) got
through.

Known limitation: when the camera also translates but the per-frame
baseline is small against the scene depth, the rotation-only model absorbs
the translation as extra rotation (about atan(baseline / depth)), and the
bias accumulates: about 2 degrees on the fixture (0.3 m drift in a 5-7 m
room), 13 degrees with a 1.8 m drift. Per pair, the essential matrix was
still less accurate there.

The relative rotation R_ab maps camera-a coordinates to camera-b coordinates
(X_b = R_ab X_a + t). Camera-to-world rotations are chained from C_0 = I as
C_b = C_a @ R_ab.T, in OpenCV camera axes (x right, y down, z forward), the
convention of the ground-truth c2w poses.
"""

import dataclasses

import cv2
import numpy as np

BACKEND_NAME = "classical-two-view-rotation"
MIN_MATCHES = 8
MIN_INLIERS = 6
REFINE_STEPS = 2
RATIO_TEST = 0.75
RANSAC_PX = 2.0
ROTATION_ONLY_PX = 2.0
METHOD_HOMOGRAPHY = "homography"
METHOD_ESSENTIAL = "essential"
METHOD_FAILED = "failed"


@dataclasses.dataclass(frozen=True)
class RotationEstimate:
    """Estimated camera rotations of a clip.

    Attributes:
        rotations: (N, 3, 3) camera-to-world rotations, rotations[0] = I.
        methods: N - 1 strings, how each consecutive pair was solved
            (METHOD_HOMOGRAPHY, METHOD_ESSENTIAL or METHOD_FAILED).
        failures: Number of pairs whose relative rotation fell back to I.
    """

    rotations: np.ndarray
    methods: tuple
    failures: int


def nearest_rotation(matrix):
    """Rotation closest to `matrix` in the Frobenius norm (SVD projection).

    Args:
        matrix: (3, 3) array, any scale; a negative determinant is taken as
            a negative scale factor and flipped first.

    Returns:
        (3, 3) float64 rotation with determinant +1.
    """
    m = np.asarray(matrix, dtype=np.float64)
    if np.linalg.det(m) < 0:
        m = -m
    u, _, vt = np.linalg.svd(m)
    d = np.sign(np.linalg.det(u @ vt))
    return u @ np.diag([1.0, 1.0, d]) @ vt


def detect_features(gray, detector=None):
    """SIFT keypoint positions and descriptors of one grayscale frame.

    Args:
        gray: (H, W) uint8 frame.
        detector: A cv2 Feature2D with float descriptors; default SIFT.

    Returns:
        (points, descriptors): float32 (M, 2) positions and (M, D)
        descriptors, or None descriptors when nothing is found.
    """
    detector = detector or cv2.SIFT_create()
    keypoints, descriptors = detector.detectAndCompute(gray, None)
    points = np.float32([kp.pt for kp in keypoints]).reshape(-1, 2)
    return points, descriptors


def match_features(features_a, features_b):
    """Matches two frames' features (L2, Lowe ratio test).

    Args:
        features_a: (points, descriptors) of frame a, from detect_features.
        features_b: (points, descriptors) of frame b.

    Returns:
        (pts_a, pts_b): float32 arrays of shape (M, 2), M >= 0.
    """
    (points_a, desc_a), (points_b, desc_b) = features_a, features_b
    empty = np.zeros((0, 2), np.float32)
    if desc_a is None or desc_b is None or len(desc_a) < 2 or len(desc_b) < 2:
        return empty, empty
    pairs = cv2.BFMatcher(cv2.NORM_L2).knnMatch(desc_a, desc_b, k=2)
    good = [p[0] for p in pairs
            if len(p) == 2 and p[0].distance < RATIO_TEST * p[1].distance]
    if not good:
        return empty, empty
    return (points_a[[m.queryIdx for m in good]],
            points_b[[m.trainIdx for m in good]])


def _rotation_only_residuals(rotation, k, pts_a, pts_b):
    """Pixel distances of pts_b from pts_a moved by the rotation alone."""
    h = k @ rotation @ np.linalg.inv(k)
    ones = np.ones((len(pts_a), 1))
    proj = np.hstack([pts_a.astype(np.float64), ones]) @ h.T
    with np.errstate(divide="ignore", invalid="ignore"):
        proj = proj[:, :2] / proj[:, 2:3]
    residuals = np.linalg.norm(proj - pts_b, axis=1)
    return np.where(np.isfinite(residuals), residuals, np.inf)


def rotation_from_bearings(k, pts_a, pts_b):
    """Least-squares rotation R with bearing_b ~ R bearing_a (SVD Procrustes).

    Args:
        k: (3, 3) camera matrix.
        pts_a: (M, 2) pixel positions in frame a, M >= 3.
        pts_b: (M, 2) matching positions in frame b.

    Returns:
        (3, 3) rotation minimizing sum |b_i - R a_i|^2 over the unit bearing
        vectors a_i = K^-1 (u, v, 1) / |.|, b_i likewise.
    """
    k_inv = np.linalg.inv(k)
    ones = np.ones((len(pts_a), 1))
    bearings_a = np.hstack([pts_a.astype(np.float64), ones]) @ k_inv.T
    bearings_b = np.hstack([pts_b.astype(np.float64), ones]) @ k_inv.T
    bearings_a /= np.linalg.norm(bearings_a, axis=1, keepdims=True)
    bearings_b /= np.linalg.norm(bearings_b, axis=1, keepdims=True)
    return nearest_rotation(bearings_b.T @ bearings_a)


def _rotation_only(k, pts_a, pts_b):
    """Rotation of the rotation-only model (H = K R K^-1), or None.

    A RANSAC homography selects the inliers (at least MIN_INLIERS); R is
    fitted to their bearings, then the inliers are re-selected with R itself
    and R refitted, up to REFINE_STEPS times (stopping early if fewer than
    MIN_INLIERS would remain).
    """
    try:
        h, mask = cv2.findHomography(pts_a, pts_b, cv2.RANSAC, RANSAC_PX)
    except cv2.error:  # Degenerate point sets can make OpenCV throw.
        return None
    if h is None or mask is None or not np.all(np.isfinite(h)):
        return None
    inliers = mask.ravel().astype(bool)
    if inliers.sum() < MIN_INLIERS:
        return None
    rotation = rotation_from_bearings(k, pts_a[inliers], pts_b[inliers])
    for _ in range(REFINE_STEPS):
        inliers = _rotation_only_residuals(rotation, k, pts_a,
                                           pts_b) <= RANSAC_PX
        if inliers.sum() < MIN_INLIERS:
            break
        rotation = rotation_from_bearings(k, pts_a[inliers], pts_b[inliers])
    return rotation


def _essential_rotation(k, pts_a, pts_b):
    """(rotation, kept) from the essential matrix, or (None, None).

    kept marks the points recoverPose keeps (RANSAC inliers in front of both
    cameras and nearer than 50 baselines). The rotation is not trusted, and
    (None, None) is returned, when recoverPose keeps fewer than half of the
    RANSAC inliers: the baseline is then too short for the decomposition.
    """
    try:
        e, mask = cv2.findEssentialMat(pts_a, pts_b, k, method=cv2.RANSAC,
                                       prob=0.999, threshold=RANSAC_PX)
        if e is None or e.shape[0] < 3 or mask is None:
            return None, None
        inliers = int(np.count_nonzero(mask))
        if inliers < MIN_INLIERS:
            return None, None
        kept, rotation, _, pose_mask = cv2.recoverPose(
            e[:3], pts_a, pts_b, k, mask=mask.copy())
    except cv2.error:  # Degenerate point sets can make OpenCV throw.
        return None, None
    if kept < max(MIN_INLIERS, 0.5 * inliers):
        return None, None
    return rotation.astype(np.float64), pose_mask.ravel().astype(bool)


def relative_rotation(pts_a, pts_b, k):
    """Rotation taking camera-a coordinates to camera-b coordinates.

    Args:
        pts_a: (M, 2) float32 pixel positions in frame a.
        pts_b: (M, 2) float32 matching positions in frame b.
        k: (3, 3) camera matrix of both frames.

    Returns:
        (rotation, method): a (3, 3) rotation and METHOD_HOMOGRAPHY or
        METHOD_ESSENTIAL, or (None, METHOD_FAILED).
    """
    if len(pts_a) < MIN_MATCHES:
        return None, METHOD_FAILED
    r_h = _rotation_only(k, pts_a, pts_b)
    r_e, kept = _essential_rotation(k, pts_a, pts_b)
    if r_e is None:
        if r_h is None:
            return None, METHOD_FAILED
        return r_h, METHOD_HOMOGRAPHY
    if r_h is None:
        return r_e, METHOD_ESSENTIAL
    parallax = _rotation_only_residuals(r_h, k, pts_a[kept], pts_b[kept])
    if np.median(parallax) <= ROTATION_ONLY_PX:
        return r_h, METHOD_HOMOGRAPHY
    return r_e, METHOD_ESSENTIAL


def estimate_rotations(frames, k):
    """Chains two-view rotations into camera-to-world rotations.

    Args:
        frames: (N, H, W, 3) uint8 BGR frames (or a sequence of them), as
            the official code feeds its pose estimator (already 640-max resized).
        k: (3, 3) camera matrix for the frames' own pixel size.

    Returns:
        A RotationEstimate with N rotations, the first one the identity.

    Raises:
        ValueError: If frames are not uint8 BGR images of one size, or k is
            not a finite invertible (3, 3) matrix.
    """
    k = np.asarray(k, dtype=np.float64)
    if k.shape != (3, 3) or not np.all(np.isfinite(k)) or abs(
            np.linalg.det(k)) < 1e-12:
        raise ValueError(f"k must be a finite invertible 3x3 matrix, got {k}")
    frames = [np.asarray(f) for f in frames]
    if not frames:
        raise ValueError("no frames given")
    for index, frame in enumerate(frames):
        if (frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] != 3
                or frame.shape != frames[0].shape):
            raise ValueError(
                f"frame {index} must be (H, W, 3) uint8 like frame 0 "
                f"{frames[0].shape}, got {frame.shape} {frame.dtype}")
    detector = cv2.SIFT_create()
    features = [detect_features(cv2.cvtColor(f, cv2.COLOR_BGR2GRAY), detector)
                for f in frames]
    rotations = [np.eye(3)]
    methods = []
    for features_a, features_b in zip(features, features[1:]):
        pts_a, pts_b = match_features(features_a, features_b)
        r_ab, method = relative_rotation(pts_a, pts_b, k)
        if r_ab is None:
            r_ab = np.eye(3)
        methods.append(method)
        rotations.append(rotations[-1] @ r_ab.T)
    return RotationEstimate(
        rotations=np.stack(rotations),
        methods=tuple(methods),
        failures=methods.count(METHOD_FAILED),
    )
