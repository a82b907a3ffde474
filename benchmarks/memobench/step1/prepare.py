"""Choosing and loading the Step 1 metric families of a run (each model loaded once).

A family whose backend cannot be had (missing checkpoint, missing package) is not
built; its metrics are reported unavailable with the reason, and the others run. Each
model is a benchmarks/common/model_recipe: loaded here in a local run, by each Ray actor
on its own device otherwise (the driver resolves the files and loads nothing).
"""

import dataclasses
from typing import Dict, Optional

from absl import logging

from benchmarks.common import calibration
from benchmarks.common.family import FamilyUnavailable
from benchmarks.common.family import Prepared
from benchmarks.common.family import Wiring
from benchmarks.common.family import lazy
from benchmarks.common import family as common_family
from benchmarks.memobench import metric_specs
from benchmarks.common import checkpoint_refs
from benchmarks.common import model_recipe
from benchmarks.memobench.step1 import pixel
from metrics.checkpoints import resolver
from proto import scorecard_pb2

_TINY = "tiny random weights of the official architecture through the real loader"
PIXEL_BACKEND = scorecard_pb2.Backend(
    name="opencv-numpy (run_eval.py reference_fidelity transcription)", official=True,
    digest_pinned=True, implementation="worldeval metrics/pixel + benchmarks/memobench/"
    "pixel_fidelity.py (OpenCV resize and Gaussian filter, numpy arithmetic)",
    parity=scorecard_pb2.Parity(
        verified=True,
        evidence="benchmarks/memobench/calibration/pixel_fidelity_official.csv (values "
                 "written by MemoBench's run_eval.py @f4edb0c; how: calibration/README.md), "
                 "recomputed by //tests:memobench_pixel_calibration_test",
        scope="GT_{O,H,R,ALL}_{PSNR,SSIM} per clip equal to the official values after "
              "run_eval.py's 4-dp rounding, on 13 clips of deterministic fixtures (the "
              "bundled sample; 1280x720 GT / 832x480 PNG clips, JPEG and mp4 GT); the "
              "official per-pair code ran without its LPIPS lines"))


# GT_*_LPIPS: the lpips package itself. The parity rows named lpips-v0.1-alex compare
# this loading path (metrics/lpips, the package model built from the two files) with the
# package's own constructor, so they are this backend's parity facts.
LPIPS_BACKEND = scorecard_pb2.Backend(
    name="lpips-package-v0.1-alex", official=True,
    checkpoint_id="alexnet-owt-7be5be79.pth + alex.pth",
    note="the lpips package's own LPIPS(net='alex') (pnet_rand=True, model_path=alex.pth; "
         "the AlexNet file's features.* copied into its net.slice*), fed by worldeval's "
         "frame glue (GT INTER_AREA resize, RGB [-1, 1], batches of 16); parity (rows "
         "lpips-v0.1-alex) against the package's own constructor on its real lin layers and "
         "a random AlexNet trunk, not on the real trunk",
    implementation="lpips 0.1.4 LPIPS(net='alex') (the official package; loaded by "
                   "metrics/lpips/lpips.py)",
    parity=calibration.parity("lpips-v0.1-alex", otherwise="numpy reference on " + _TINY))
# --lpips_backend values. "worldeval" chose worldeval's own torch LPIPS, now removed: it
# is still accepted and runs the package, with a warning (RETIRED_LPIPS_BACKENDS).
LPIPS_BACKENDS = {"lpips": LPIPS_BACKEND, "worldeval": LPIPS_BACKEND}
RETIRED_LPIPS_BACKENDS = {
    "worldeval": "--lpips_backend=worldeval: worldeval's own LPIPS was removed; GT_*_LPIPS "
                 "runs the lpips package (lpips 0.1.4 LPIPS(net='alex'), the same weights; "
                 "equal to the old values within 1e-6, //metrics/lpips:lpips_parity_test). "
                 "Pass --lpips_backend=lpips or leave the flag out."}


RAFT_BACKEND = scorecard_pb2.Backend(
    name="raft-large", official=True, checkpoint_id="raft_large_C_T_SKHT_V2-ff5fadd5.pth",
    note="torchvision raft_large, official preprocessing ([0,1] RGB, replicate pad to 8)",
    implementation="torchvision.models.optical_flow.raft_large (the official package)",
    parity=calibration.parity("raft-large", otherwise="warp-error arithmetic against a numpy "
                              "reference; RAFT on " + _TINY))
DIS_BACKEND = scorecard_pb2.Backend(
    name="opencv-dis", official=False,
    note="OpenCV DIS optical flow (MEDIUM preset) in place of RAFT: weight-free, NOT the "
         "official backend; the warp-error arithmetic is the official one",
    digest_pinned=True, implementation="opencv DISOpticalFlow (alternative backend)")


MAPANYTHING_BACKEND = scorecard_pb2.Backend(
    name="mapanything", official=True, checkpoint_id="facebook/map-anything-apache",
    implementation="the mapanything package (official), driven with the official arguments",
    parity=calibration.parity("mapanything", otherwise="argument and frame hand-off against "
                              "a stand-in package; rotation-ATE arithmetic against a reference"))
CLASSICAL_CAMERA_BACKEND = scorecard_pb2.Backend(
    name="classical-two-view-rotation", official=False,
    note="SIFT matches between consecutive frames, rotation from a homography fit or the "
         "essential matrix, GT intrinsics rescaled to the frame size; replaces MapAnything; "
         "NOT official. The rotation-ATE arithmetic is the official one",
    digest_pinned=True, implementation="worldeval metrics/camera two_view_rotation "
    "(alternative backend)")


@dataclasses.dataclass(frozen=True)
class Step1Settings:
    """The flags that choose and locate Step 1 backends."""

    device: str = "auto"
    checkpoint_dir: Optional[str] = None
    offline: bool = False
    flow_backend: str = "raft"
    camera_backend: str = "mapanything"
    lpips_backend: str = "lpips"   # LPIPS_BACKENDS key: the package ("worldeval" is retired)
    checkpoints: Dict[str, str] = dataclasses.field(default_factory=dict)  # name -> path
    prompt_src_syn: Optional[str] = None   # ImageRewardScore prompts (benchmarks/memobench/prompts)
    prompt_src_real: Optional[str] = None


def _pixel(settings: Step1Settings, wanted) -> Prepared:
    """PSNR/SSIM (weight-free) with LPIPS where its weights are had: without them the
    family still runs, its LPIPS metrics unavailable with the reason."""
    lpips_fn, lpips_refs, unavailable = None, (), {}
    lpips_backend = LPIPS_BACKENDS[settings.lpips_backend]
    if set(wanted) & set(pixel.LPIPS_IDS):
        if settings.lpips_backend in RETIRED_LPIPS_BACKENDS:
            logging.warning("%s", RETIRED_LPIPS_BACKENDS[settings.lpips_backend])
        try:
            lpips_fn, lpips_refs = _load_lpips(settings)
        except resolver.CheckpointUnavailable as e:
            unavailable = {m: (f"LPIPS weights unavailable: {e}", lpips_backend)
                           for m in pixel.LPIPS_IDS}
    return Prepared([pixel.PixelFidelity(PIXEL_BACKEND, lpips_fn, lpips_backend, lpips_refs)],
                    unavailable)


def _camera(settings: Step1Settings, wanted):
    del wanted
    from benchmarks.memobench.step1 import camera  # pylint: disable=import-outside-toplevel
    if settings.camera_backend == "classical":
        return camera.ClassicalCameraControllability(CLASSICAL_CAMERA_BACKEND)
    try:
        return _mapanything_family(settings)
    except ModuleNotFoundError as e:
        raise FamilyUnavailable(str(e)) from e


def _model(builder_name: str):
    """A builder of step1/models.py (torch: imported when wanted)."""
    return lambda settings, wanted: lazy("benchmarks.memobench.step1.models",
                                         builder_name)(settings)


def _image_reward(settings: Step1Settings, wanted) -> Prepared:
    del wanted
    from benchmarks.memobench.step1 import image_reward  # pylint: disable=import-outside-toplevel
    built, why = image_reward.build(settings)  # InputError: a prompt CSV path is wrong
    return Prepared([built], {}) if built is not None else Prepared([], {image_reward.METRIC: why})


# The Step 1 families in the order they run, each model loaded once when selected. The
# aesthetic-only family is built only when VisualQuality's (which fills it too) is not.
WIRINGS = (
    Wiring("pixel_fidelity", pixel.PSNR_SSIM_IDS + pixel.LPIPS_IDS, _pixel),
    Wiring("motion_smoothness", ("MotionSmoothness",),
           lambda settings, wanted: _motion_family(settings), RAFT_BACKEND,
           why="RAFT weights unavailable: {error} (or pass --flow_backend=dis for a "
               "weight-free, non-official estimate)"),
    Wiring("camera_controllability", ("CameraControllability",), _camera,
           MAPANYTHING_BACKEND,
           why="MapAnything, the official pose estimator, is unavailable: {error}; pass "
               "--camera_backend=classical for a weight-free, non-official estimate"),
    Wiring("object_identity", ("ObjIdentityConsistency",), _model("object_identity"),
           why="DINOv2 ViT-B/14 (facebook/dinov2-base) unavailable: {error}"),
    Wiring("geo3d", ("Geo3DConsistency",), _model("geo3d"),
           why="Depth Anything V2 Small unavailable: {error}"),
    Wiring("visual_quality", ("VisualQuality",), _model("visual_quality"),
           why="VisualQuality (LAION aesthetic predictor on CLIP ViT-L/14 + CLIP-IQA+ on "
               "CLIP RN50) unavailable: {error}"),
    Wiring("aesthetic", ("AestheticScore",), _model("aesthetic"),
           why="the LAION aesthetic predictor (CLIP ViT-L/14 + MLP head) unavailable: {error}"),
    Wiring("gt_revisit", ("GTRevisitSim",), _model("gt_revisit"),
           why="CLIP ViT-B/32 (openai/clip-vit-base-patch32) unavailable: {error}"),
    Wiring("image_reward", ("ImageRewardScore",), _image_reward),
)


def prepare(settings: Step1Settings, metric_ids) -> Prepared:
    """Builds the families the selected metrics need."""
    return common_family.prepare(WIRINGS, settings, metric_ids,
                          {m: metric_specs.PENDING.get(m, "not computed") for m in metric_ids})


def _load_lpips(settings: Step1Settings):
    """(lpips_fn, checkpoint refs): LPIPS AlexNet loaded once; raises CheckpointUnavailable."""
    from metrics.lpips import lpips  # pylint: disable=import-outside-toplevel  (torch)
    alexnet, alexnet_ref = checkpoint_refs.resolve(lpips.ALEXNET_SPEC, settings, "GT_ALL_LPIPS")
    lin, lin_ref = checkpoint_refs.resolve(lpips.LPIPS_ALEX_SPEC, settings, "GT_ALL_LPIPS")
    model = model_recipe.prepared(lambda device: lpips.load_lpips_alex(
        alexnet.path, lin.path, device), settings.device, "lpips")
    return (lambda gt, gen: lpips.lpips_distance_pairs(model.get(), gt, gen, batch_size=16),
            (alexnet_ref, lin_ref))



def _mapanything_family(settings: Step1Settings):
    """CameraControllability on MapAnything poses; raises ModuleNotFoundError when the
    package is not installed, CheckpointUnavailable when its weights are missing."""
    from benchmarks.memobench.step1 import camera  # pylint: disable=import-outside-toplevel
    from metrics.camera import mapanything_poses  # pylint: disable=import-outside-toplevel
    if not mapanything_poses.is_installed():
        raise ModuleNotFoundError("the mapanything package is not installed (it is not on "
                                  "PyPI): " + mapanything_poses.INSTALL_HINT)
    found, ref = checkpoint_refs.resolve(mapanything_poses.MAPANYTHING_APACHE, settings,
                                           "CameraControllability")
    model = model_recipe.prepared(lambda device: mapanything_poses.load_mapanything(
        found.path, device), settings.device, "mapanything")
    return camera.MapAnythingCameraControllability(model, MAPANYTHING_BACKEND, (ref,))


def _motion_family(settings: Step1Settings):
    """MotionSmoothness with the chosen flow backend; RAFT raises CheckpointUnavailable."""
    from benchmarks.memobench.step1 import motion  # pylint: disable=import-outside-toplevel
    if settings.flow_backend == "dis":
        from metrics.flow import opencv_dis  # pylint: disable=import-outside-toplevel
        return motion.MotionSmoothness(opencv_dis.DisFlow(), DIS_BACKEND)
    from metrics.flow import raft  # pylint: disable=import-outside-toplevel  (torch)
    found, ref = checkpoint_refs.resolve(raft.RAFT_LARGE, settings, "MotionSmoothness")
    flow = model_recipe.prepared(
        lambda device: raft.RaftFlow(raft.load_raft(found.path, device), device),
        settings.device, "raft")
    return motion.MotionSmoothness(model_recipe.method(flow), RAFT_BACKEND, (ref,))
