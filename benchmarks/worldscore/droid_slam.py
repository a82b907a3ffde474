"""DROID-SLAM as WorldScore runs it (spec §4.1, §4.4): the checkpoint pin and the settings.

Official source: the `args` dict of CameraErrorMetric.__init__ in
worldscore/benchmark/metrics/third_party/camera_error_metrics.py, identical to
ReprojectionErrorMetric's in reprojection_error_metrics.py, and droid.py::terminate
(haoyi-duan/WorldScore@344983c). Both metrics track every frame (stride 1, t0 0) with the
frontend only (`track` never calls the backend), then terminate() runs the global backend
for 7 and then 12 steps and fills in the non-keyframe poses.
"""

import dataclasses
from typing import Tuple

from metrics.slam import pins as slam_pins

# WorldScore's README fetches droid.pth with `gdown <DRIVE_ID>` (DROID-SLAM's README's id);
# the pin is metrics.slam.pins'.
DRIVE_ID = slam_pins.DRIVE_ID
DROID_PTH = slam_pins.DROID_PTH


@dataclasses.dataclass(frozen=True)
class DroidSlamSettings:
    """The official DROID-SLAM arguments (names as the official argparse Namespace).

    Attributes:
      t0, stride: first frame and frame step of the image stream.
      buffer: keyframe buffer size of the depth video.
      beta: rotation/translation weight of the frame-distance metric.
      filter_thresh: motion filter: mean flow (px, 1/8 grid) a frame needs to be added.
      warmup: keyframes before the frontend initialises.
      keyframe_thresh: frontend: below this distance a keyframe is removed.
      frontend_thresh, frontend_window, frontend_radius, frontend_nms: the frontend's
        proximity edges (distance threshold, window, radius, non-max suppression).
      backend_thresh, backend_radius, backend_nms: the global backend's edges.
      upsample: convex-upsample the disparities each update (high-resolution depths).
      stereo: False, monocular.
      calib: (fx, fy, cx, cy) in original pixels, fixed whatever the frame size.
      backend_steps: the global BA steps of terminate(), in order.
    """

    t0: int = 0
    stride: int = 1
    buffer: int = 512
    beta: float = 0.3
    filter_thresh: float = 0.01
    warmup: int = 8
    keyframe_thresh: float = 4.0
    frontend_thresh: float = 16.0
    frontend_window: int = 25
    frontend_radius: int = 2
    frontend_nms: int = 1
    backend_thresh: float = 22.0
    backend_radius: int = 2
    backend_nms: int = 3
    upsample: bool = True
    stereo: bool = False
    calib: Tuple[float, float, float, float] = (500.0, 500.0, 256.0, 256.0)
    backend_steps: Tuple[int, ...] = (7, 12)

    def official_args(self, weights: str, image_size) -> dict:
        """The Namespace fields the official Droid(args) reads, `image_size` [H, W] of
        the first (resized, cropped) frame included."""
        out = dataclasses.asdict(self)
        del out["backend_steps"]
        out["calib"] = list(self.calib)
        out.update(weights=str(weights), image_size=[int(image_size[0]), int(image_size[1])])
        return out


OFFICIAL = DroidSlamSettings()


@dataclasses.dataclass(frozen=True)
class DroidInternals:
    """Constants inside the DROID-SLAM copy WorldScore vendors (droid_frontend.py,
    droid_backend.py, factor_graph.py, trajectory_filler.py), not in its arguments.

    Attributes:
      frontend_max_factors: the frontend graph's factor limit.
      frontend_max_age: frontend edges older than this go to the inactive set.
      frontend_iters: update iterations per new keyframe, before and after the
        keyframe-removal test.
      init_iters: update iterations before and after the initial proximity edges.
      init_neighborhood_radius / init_proximity_rad / init_proximity_nms: the
        initialisation's edges (the proximity thresh is frontend_thresh).
      init_proximity_beta: the initialisation's proximity call leaves beta at the
        add_proximity_factors default 0.25 (droid_frontend.py::__initialize), not the
        run's beta 0.3.
      backend_factors_per_keyframe: the global graph's limit is this times the keyframes.
      filler_batch / filler_iters: frames per filler batch; motion-only updates per batch.
      frontend_ba / backend_ba: (lm, ep) of the dense BA call in update / update_lowmem.
      damping_scale / damping_eps: BA damping = scale * eta + eps.
    """

    frontend_max_factors: int = 48
    frontend_max_age: int = 25
    frontend_iters: Tuple[int, int] = (4, 2)
    init_iters: Tuple[int, int] = (8, 8)
    init_neighborhood_radius: int = 3
    init_proximity_rad: int = 2
    init_proximity_nms: int = 2
    init_proximity_beta: float = 0.25
    backend_factors_per_keyframe: int = 16
    filler_batch: int = 16
    filler_iters: int = 6
    frontend_ba: Tuple[float, float] = (1e-4, 0.1)
    backend_ba: Tuple[float, float] = (1e-5, 1e-2)
    damping_scale: float = 0.2
    damping_eps: float = 1e-7


INTERNALS = DroidInternals()


def network_recipe(config, metric_id: str):
    """(DroidNet in eval mode as a benchmarks/common/model_recipe, checkpoint ref) from the
    resolved droid.pth: loaded once per process where compute runs, now in a local run; the
    run's config.architectures["droid_net"] (a DroidNetConfig) is for tiny test files only.

    Raises:
      resolver.CheckpointUnavailable: droid.pth not found, with the command that fetches it.
    """
    # pylint: disable=import-outside-toplevel  (torch only when the network is built)
    from benchmarks.common import checkpoint_refs
    from benchmarks.common import model_recipe
    from metrics.slam import droid_net
    found, ref = checkpoint_refs.resolve(DROID_PTH, config.common, metric_id)
    arch = (config.architectures or {}).get("droid_net")
    return model_recipe.prepared(lambda device: droid_net.load_droid_net(found.path, device, arch),
                                 config.common.device, "droid_net"), ref


def load_network(config, metric_id: str):
    """(DroidNet in eval mode, checkpoint ref): `network_recipe`'s model, built here."""
    recipe, ref = network_recipe(config, metric_id)
    return recipe.get(), ref
