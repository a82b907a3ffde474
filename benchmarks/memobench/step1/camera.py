"""CameraControllability (spec §4.5): estimated vs GT camera rotations, rotation-only ATE.

GT poses come from the clip's pose files in upstream's order, resampled uniformly to
the generated length; the estimator is pluggable. The official estimator is
MapAnything (not on PyPI); the weight-free classical two-view estimator is named as
not official. Columns: CameraControllability (0-1, later overwritten by its 0-100
value in the CSV), ATE_RotDeg, TotalGT_RotDeg, MeanRotErrorDeg.
"""

import pathlib
import zipfile

from benchmarks.common import scorecard as card_lib
from benchmarks.memobench.step1 import family
from metrics.camera import gt_poses
from metrics.camera import intrinsics as intrinsics_lib
from metrics.camera import rotation_ate
from metrics.camera import two_view_rotation
from metrics.video import frames as frames_lib

COLUMNS = ("CameraControllability", "ATE_RotDeg", "TotalGT_RotDeg", "MeanRotErrorDeg")


def gt_image_size(source: pathlib.Path):
    """(width, height) of the GT frames, which the GT intrinsics refer to."""
    if source.is_dir():
        first = frames_lib.read_image(frames_lib.list_frame_files(source)[0])
    else:
        first = frames_lib.read_video_frames(source, [0])[0]
    return first.shape[1], first.shape[0]


def load_gt_poses(gt, num_frames: int):
    """GT c2w resampled to `num_frames`; FileNotFoundError names every path tried."""
    for path in gt.pose_candidates:
        if path.is_file():
            return gt_poses.resample_poses(gt_poses.load_pose_file(path), num_frames)
    raise FileNotFoundError("no GT camera poses; tried "
                            + ", ".join(str(p) for p in gt.pose_candidates))


def official_columns(result: rotation_ate.RotationAteScore) -> dict:
    """camera_controllability.py's rounding: the score to 4 dp, the three angles to 3."""
    return {"CameraControllability": round(result.score, 4),
            "ATE_RotDeg": round(result.ate_rot_deg, 3),
            "TotalGT_RotDeg": round(result.total_gt_rot_deg, 3),
            "MeanRotErrorDeg": round(result.mean_rot_error_deg, 3)}


class CameraControllability(family.Family):
    """The official scoring of estimated against GT rotations; subclasses estimate."""

    name = "camera_controllability"
    metric_ids = ("CameraControllability",)
    # A truncated or corrupt GT pose file (npz) is the clip's input problem.
    expected_errors = (zipfile.BadZipFile, EOFError)

    def estimate(self, ctx: family.ClipContext):
        """(N, 3, 3) rotations or (N, 4, 4) cam2world poses, one per generated frame."""
        raise NotImplementedError

    def compute(self, ctx: family.ClipContext) -> family.FamilyResult:
        gt = load_gt_poses(ctx.gt, len(ctx.frames))
        result = rotation_ate.rotation_ate_score(gt, self.estimate(ctx))
        if result is None:  # fewer than two poses: upstream's None
            return family.FamilyResult({c: None for c in COLUMNS},
                                       {"CameraControllability": card_lib.OFFICIAL_GAP
                                        + "fewer than 2 poses"})
        return family.FamilyResult(official_columns(result))


class ClassicalCameraControllability(CameraControllability):
    """Rotations from feature matches between consecutive frames (NOT official)."""

    def estimate(self, ctx: family.ClipContext):
        k_gt = intrinsics_lib.camera_matrix(*ctx.gt.intrinsics)
        k = intrinsics_lib.rescale(k_gt, gt_image_size(ctx.gt.source),
                                   (ctx.frames.shape[2], ctx.frames.shape[1]))
        return two_view_rotation.estimate_rotations(ctx.frames, k).rotations


class MapAnythingCameraControllability(CameraControllability):
    """MapAnything poses of all frames in one pass (the official estimator).

    Upstream swallows any MapAnything exception into a None score; here the exception
    still fails only this clip, and its message is recorded as the clip's error. `model`
    is a benchmarks/common/model_recipe.ModelRecipe of the MapAnything model.
    """

    def __init__(self, model, backend, checkpoints=()):
        super().__init__(backend, checkpoints)
        self._model = model

    def estimate(self, ctx: family.ClipContext):
        from metrics.camera import mapanything_poses  # pylint: disable=import-outside-toplevel
        return mapanything_poses.estimate_poses(self._model.get(), ctx.frames)
