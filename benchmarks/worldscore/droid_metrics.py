"""camera_control.camera_error and 3d_consistency.reprojection_error (spec §4.1, §4.4):
one DROID-SLAM run per static instance feeds both.

Official source: camera_error_metrics.py and reprojection_error_metrics.py
(haoyi-duan/WorldScore@344983c). Each official metric runs its own DROID-SLAM over the
same image stream with the same arguments; here one run (metrics/slam/droid_tracker.py,
settings from droid_slam.py) gives the trajectory (camera_control.py) and the last
global BA's reprojection inputs (reprojection.py). Only static instances have these
aspects (dynamic ones: no column).

Failures as the official evaluator records them: when tracking raises (e.g. a single
keyframe, where the official backend fails on an empty edge list), both metrics raised;
instance_eval turns that into reprojection_error's +100 fallback and, for camera_error
(a composite metric, whose official fallback crashes), an error naming it. A run with no
valid reprojected pixel leaves reprojection_error unset (reprojection.ReprojectionUnset,
same fallback) while camera_error is still computed.
"""

from typing import Dict, Sequence

from benchmarks.common import calibration
from benchmarks.common import family
from benchmarks.worldscore import aspects
from benchmarks.worldscore import camera_control
from benchmarks.worldscore import droid_slam
from benchmarks.worldscore import layout
from benchmarks.worldscore import metric_specs
from benchmarks.worldscore import official_json
from benchmarks.worldscore import reprojection
from metrics.camera import slam_input

CAMERA_ERROR = metric_specs.metric_id("camera_control", "camera_error")
REPROJECTION_ERROR = metric_specs.metric_id("3d_consistency", "reprojection_error")
METRIC_IDS = (CAMERA_ERROR, REPROJECTION_ERROR)
BACKEND = "droid-slam"


def backend(area: int = slam_input.DEFAULT_AREA):
    from proto import scorecard_pb2  # pylint: disable=import-outside-toplevel
    spec = droid_slam.DROID_PTH
    official = area == slam_input.DEFAULT_AREA
    return scorecard_pb2.Backend(
        name=BACKEND if official else f"{BACKEND}-area{area}", official=official,
        checkpoint_id=f"gdrive:{droid_slam.DRIVE_ID}/{spec.filename}",
        implementation="metrics/slam (droid_tracker and its parts, PyTorch BA) + "
                       "benchmarks/worldscore/{camera_control,reprojection,droid_metrics}.py",
        note="DROID-SLAM monocular, WorldScore's arguments and internals (droid_slam.py): "
             "frontend while tracking, global BA 7 then 12 steps, trajectory filler; one run "
             "feeds both metrics; float32 off CUDA, upstream's float16 autocast on CUDA" + (
                 "" if official else f"; frames resized to {area} pixels, NOT the official "
                 "512 x 512 area (tests only)"),
        parity=calibration.parity(BACKEND, otherwise=(
            "the loop on tiny random DroidNets through the real droid.pth loader (structure, "
            "determinism, quirks); no numeric comparison with the released weights yet")))


def _frames(ctx):
    return [ctx.frames[ctx.frame_ids.index(i)] for i in range(len(ctx.frame_files))]


def instance_outcomes(frames_bgr: Sequence, camera_data: dict, net, wanted: Sequence[str],
                      device="cpu", area: int = slam_input.DEFAULT_AREA) -> Dict[str, object]:
    """metric id -> raw score, or the exception the official metric raised."""
    # pylint: disable=import-outside-toplevel  (torch only when the family runs)
    from metrics.slam import droid_factor_graph
    from metrics.slam import droid_tracker
    settings = droid_slam.OFFICIAL
    stream = list(camera_control.image_stream(frames_bgr, settings.stride, area))
    try:
        run = droid_tracker.track_sequence(net, stream, settings, droid_slam.INTERNALS,
                                           settings.backend_steps, t0=settings.t0,
                                           device=device)
    except droid_factor_graph.NoEdges as e:
        return {m: e for m in wanted}
    out: Dict[str, object] = {}
    if CAMERA_ERROR in wanted:
        out[CAMERA_ERROR] = camera_control.camera_error_from_droid(run.trajectory,
                                                                   camera_data).score
    if REPROJECTION_ERROR in wanted:
        try:
            out[REPROJECTION_ERROR] = reprojection.reprojection_error(run.coords1, run.valid,
                                                                      run.target)
        except reprojection.ReprojectionUnset as e:
            out[REPROJECTION_ERROR] = e
    return out


def build(config, metric_ids) -> family.Family:
    """DroidNet from droid.pth (CheckpointUnavailable with the fetch command when missing);
    config.architectures["droid_net"] (a DroidNetConfig) replaces the full size and
    config.architectures["droid_input_area"] the 512 x 512 input area, in tests only."""
    ids = tuple(m for m in METRIC_IDS if m in metric_ids)
    net, ref = droid_slam.network_recipe(config, ids[0])  # loaded where compute runs
    area = int((config.architectures or {}).get("droid_input_area", slam_input.DEFAULT_AREA))

    def compute(ctx) -> family.FamilyResult:
        if ctx.movement != aspects.STATIC:
            return family.FamilyResult({})
        path = ctx.path / layout.CAMERA_DATA
        camera_data = official_json.read_json(path, layout.CAMERA_DATA)
        frames = _frames(ctx)
        camera_control.check_frame_count(camera_data, ctx.image_data.get("total_frames"),
                                         len(frames), str(path))
        return family.FamilyResult(instance_outcomes(frames, camera_data, net.get(), ids,
                                                      net.device(), area))

    return family.FunctionFamily("droid_slam", ids, compute, backend(area), (ref,))
